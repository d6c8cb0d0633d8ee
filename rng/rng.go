// Package rng derives every random stream of dpaudit from the spec seed.
//
// A stream is named by the seed and a path of labels, e.g.
// (seed, "point", pointID, "trial", 17). Streams with different paths are
// independent for practical purposes (the path is hashed with SHA-256 into a
// ChaCha8 key), and a stream never depends on which worker or shard asks for
// it — that is what makes results identical for any -j or shard size.
package rng

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// Key hashes a seed and a path of labels into 32 bytes. Labels may be
// strings, signed or unsigned integers, or anything fmt prints; each is
// length-prefixed and type-tagged so ("ab","c") and ("a","bc") differ.
func Key(seed uint64, path ...any) [32]byte {
	h := sha256.New()
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], seed)
	h.Write([]byte("dpaudit/rng/v1"))
	h.Write(buf[:])
	for _, p := range path {
		var tag byte
		var b []byte
		switch v := p.(type) {
		case string:
			tag, b = 's', []byte(v)
		case int:
			tag, b = 'i', binary.LittleEndian.AppendUint64(nil, uint64(v))
		case int64:
			tag, b = 'i', binary.LittleEndian.AppendUint64(nil, uint64(v))
		case uint64:
			tag, b = 'i', binary.LittleEndian.AppendUint64(nil, v)
		case uint32:
			tag, b = 'i', binary.LittleEndian.AppendUint64(nil, uint64(v))
		case int32:
			tag, b = 'i', binary.LittleEndian.AppendUint64(nil, uint64(v))
		default:
			tag, b = 'f', []byte(fmt.Sprint(v))
		}
		h.Write([]byte{tag})
		binary.LittleEndian.PutUint64(buf[:], uint64(len(b)))
		h.Write(buf[:])
		h.Write(b)
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

// New returns a generator for the stream named by seed and path.
func New(seed uint64, path ...any) *rand.Rand {
	return rand.New(rand.NewChaCha8(Key(seed, path...)))
}

// Seed derives a 64-bit child seed for the stream named by seed and path,
// for code that wants to pass a plain integer seed down.
func Seed(seed uint64, path ...any) uint64 {
	k := Key(seed, path...)
	return binary.LittleEndian.Uint64(k[:8])
}
