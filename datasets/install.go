package datasets

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// install writes the content of r (raw or gzipped IDX, detected by magic
// bytes) to <dir>/<f.Name>. The content goes to a temporary file in the
// same folder and is renamed into place only after its SHA-256 matches the
// pin, so a failed or corrupt fetch never leaves a file that Load would
// read. origin names the source in error messages.
func install(dir string, f pinnedFile, r io.Reader, origin string) (err error) {
	src, closeSrc, err := maybeGunzip(r)
	if err != nil {
		return fmt.Errorf("%s: %w", origin, err)
	}
	defer closeSrc()
	tmp, err := os.CreateTemp(dir, "."+f.Name+".partial-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	// Read at most one byte more than expected: enough to notice an
	// oversized file without letting a bad source fill the disk.
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(src, f.Size+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return formatf("%s: truncated gzip stream", origin)
		}
		return fmt.Errorf("%s: %w", origin, gzipErr(err))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 || n != f.Size {
		if n > f.Size {
			got += fmt.Sprintf(" (of the first %d bytes; the file is larger than the expected %d)", n, f.Size)
		}
		return &ChecksumError{Path: origin, Want: f.SHA256, Got: got}
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, f.Name))
}

// maybeGunzip returns a reader of the decompressed content if r starts
// with the gzip magic bytes, else r itself (buffered).
func maybeGunzip(r io.Reader) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 256<<10)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, nil, formatf("truncated gzip header")
		}
		if err != nil {
			return nil, nil, gzipErr(err)
		}
		return zr, func() { zr.Close() }, nil
	}
	return br, func() {}, nil
}

// cancellable reads r until ctx is cancelled; then every Read fails with
// ctx's error, so install stops and removes its temporary file. (A network
// body stops by itself: its request carries the context.)
func cancellable(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx, r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
