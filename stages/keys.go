package stages

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// TrialsFile is a trial shard's output table (one row per trial), the
// table published as trials/point=<id>/part-<k>.parquet.
const TrialsFile = "trials.parquet"

// RepeatKey is the trial key of repeat r: repeat 0 keeps the key of an
// audit without repeats, so adding repeats reuses its trials.
func RepeatKey(key string, r int) string {
	if r == 0 {
		return key
	}
	return fmt.Sprintf("%s/repeat/%d", key, r)
}

// HashKey is a short key of v's JSON: the identity of a game's
// configuration, from which its trials' random streams derive
// (rng.New(seed, "trial", key, i)).
func HashKey(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// RepeatLabel is " repeat r+1/R" for a node label ("" without repeats).
func RepeatLabel(r, repeats int) string {
	if repeats == 1 {
		return ""
	}
	return fmt.Sprintf(" repeat %d/%d", r+1, repeats)
}

// RepeatSlot is "/repeat/r" for a node slot ("" for repeat 0, which
// keeps the slot of an audit without repeats).
func RepeatSlot(r int) string {
	if r == 0 {
		return ""
	}
	return fmt.Sprintf("/repeat/%d", r)
}
