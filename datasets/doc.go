// Package datasets provides the data that dpaudit trains and audits on:
// an embedded default set, MNIST-shaped sets read from a data directory,
// seeded synthetic generators, and users' own files (Parquet, CSV, .npy,
// .npz). It is a floor-1 package: it imports the standard library,
// arrow-go (Parquet) and the module's rng and internal/npy packages.
//
// # Sources
//
//   - "digits": scikit-learn's 1797 handwritten digits, 8×8, values 0..16,
//     10 classes, embedded in the binary (BSD-3-Clause; see
//     data/LICENSE.digits), so the quickstart and tests need no download.
//     It has no canonical split; see Source.TestFraction for ours.
//   - "mnist", "fashion-mnist": 60,000 train / 10,000 test, 28×28, 10
//     classes, read from the data directory (DefaultDataDir) after
//     `dpaudit data fetch` (Fetch). Every file's SHA-256 is checked on
//     every load.
//   - "gaussian": a Gaussian mixture (GaussianMixture); with Shape
//     [3, 32, 32] and 10 classes it stands in for CIFAR-10.
//   - "purchase-like": sparse binary records in clusters (PurchaseLike),
//     standing in for Purchase-100.
//   - "adult-like": census-like one-hot records, binary label
//     (AdultLike), standing in for UCI Adult.
//   - "file": a user's file (Source.File, a FileSource): a Parquet or CSV
//     table with a label column and numeric feature columns, or arrays
//     in .npz/.npy. Parquet is read in record batches straight into the
//     float32 matrix. The content's SHA-256 (Digest, remembered per
//     process while size, time and inode stay the same) is checked on
//     every load against the digest the caller recorded (FileRef.SHA256),
//     so a cache keyed by it never serves results of an older file.
//
// CIFAR-10, Purchase-100 and Adult cannot be obtained on the machines this
// project builds on; experiments that use them in the papers run on the
// synthetic stand-ins (which have their shapes, not their content) and must
// say so.
//
// # Use
//
//	split, err := datasets.Load(
//		datasets.Source{Name: "mnist"},
//		datasets.Options{Classes: []int{0, 1}, TrainSize: 1000, Seed: 1},
//		datasets.DefaultDataDir())
//
// Options apply to every source: class filter with remapping, seeded
// subsample, normalisation, ℓ2 scaling, flattening. Load keeps nothing
// between calls except the parsed digits set in memory, and writes
// nothing.
//
// # For the CLI
//
// `dpaudit data fetch NAME [--from PATH] [--mirror URL]...` is
//
//	err := datasets.Fetch(name, datasets.DefaultDataDir(), datasets.FetchOptions{
//		From: from, Mirrors: mirrors, Progress: os.Stderr})
//
// with exit code 2 when datasets.IsBadInput(err). NAME is one of
// FetchableNames ("digits" is accepted and does nothing: it is embedded).
// `dpaudit data ls` prints datasets.List(datasets.DefaultDataDir()): one
// Status per data set (Ready, Dir, Hint) and one FileStatus per file
// (State, Path, Gzipped, Err). Interrupted fetches can leave hidden
// ".<file>.partial-*" files in the data set's folder; they are never read
// and may be deleted.
//
// # Errors
//
// Bad input — an unknown source or option, a filter that leaves no data,
// sizes larger than available, a missing or corrupt data file, NaN or Inf
// in data, a missing column, a non-numeric value, a ragged CSV row, a
// user's file that changed since its digest was recorded — wraps one of
// ErrInvalid, ErrNotFetched, ErrChecksum, ErrFormat; IsBadInput tells
// these from I/O failures. Problems with one field of a FileSource are
// also a *FieldError naming the field ("label", "features", "shape",
// "path", …). A missing file's
// error (*MissingError) names the file and the exact command that fetches
// it.
package datasets
