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
	var buf [128]byte
	return sha256.Sum256(appendPath(header(buf[:0], seed), path))
}

// header starts the hashed message of every stream: the scheme's tag and
// the seed.
func header(b []byte, seed uint64) []byte {
	return binary.LittleEndian.AppendUint64(append(b, "dpaudit/rng/v1"...), seed)
}

// appendPath appends each label as its type tag, its length (8 bytes) and
// its bytes: integers as 8 little-endian bytes, strings as themselves,
// anything else as fmt prints it.
func appendPath(b []byte, path []any) []byte {
	for _, p := range path {
		switch v := p.(type) {
		case string:
			b = appendLabel(b, 's', v)
		case int:
			b = appendInt(b, uint64(v))
		case int64:
			b = appendInt(b, uint64(v))
		case uint64:
			b = appendInt(b, v)
		case uint32:
			b = appendInt(b, uint64(v))
		case int32:
			b = appendInt(b, uint64(v))
		default:
			b = appendLabel(b, 'f', fmt.Sprint(v))
		}
	}
	return b
}

func appendLabel(b []byte, tag byte, s string) []byte {
	b = binary.LittleEndian.AppendUint64(append(b, tag), uint64(len(s)))
	return append(b, s...)
}

func appendInt(b []byte, v uint64) []byte {
	b = binary.LittleEndian.AppendUint64(append(b, 'i'), 8)
	return binary.LittleEndian.AppendUint64(b, v)
}

// Prefix names the streams whose paths start alike, e.g. one per trial
// under (seed, "trial", pointID): it encodes the seed and the common
// labels once, so that a key costs only its own labels and one SHA-256 of
// the whole (no allocation). Its keys are Key's bytes.
type Prefix struct {
	msg []byte // header and common labels; Key appends past len(msg) into a copy
}

// NewPrefix returns the prefix (seed, path...).
func NewPrefix(seed uint64, path ...any) Prefix {
	return Prefix{msg: appendPath(header(nil, seed), path)}
}

// Key is Key(seed, prefix..., index): the key of the stream whose last
// label is the integer index.
func (p Prefix) Key(index int) [32]byte {
	var buf [256]byte
	b := append(buf[:0], p.msg...)
	return sha256.Sum256(appendInt(b, uint64(index)))
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
