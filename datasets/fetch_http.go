package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// downloadOne fetches base/<f.Name>.gz and installs it. Besides the
// decisive check of the uncompressed content (in install), it compares the
// digest of the .gz itself with the known ones and reports a difference,
// which only means a mirror recompressed the same content.
func downloadOne(ctx context.Context, client *http.Client, base, dir string, f pinnedFile, progress io.Writer, dsName string) error {
	url := strings.TrimSuffix(base, "/") + "/" + f.Name + ".gz"
	progressf(progress, "%s: downloading %s", dsName, url)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %s", url, resp.Status)
	}
	gzHash := sha256.New()
	body := io.TeeReader(resp.Body, gzHash)
	if err := install(dir, f, body, url); err != nil {
		return err
	}
	// The gzip reader may stop before the end of the body (trailing
	// padding); hash the rest so the .gz digest covers the whole download.
	if _, err := io.Copy(io.Discard, body); err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	gzSum := hex.EncodeToString(gzHash.Sum(nil))
	if slices.Contains(f.KnownGzSHA256, gzSum) {
		progressf(progress, "%s: %s ok (sha256 of the .gz matches the canonical mirrors', content verified)", dsName, f.Name)
	} else {
		progressf(progress, "%s: %s ok (content verified; the .gz differs from the canonical mirrors' files: sha256 %s)",
			dsName, f.Name, gzSum)
	}
	return nil
}
