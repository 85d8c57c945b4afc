package servetest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Call posts one JSON-RPC request (application/json) over a fresh connection and returns how long
// the answer took and its body. It fails when no answer came within timeout, the status was not
// 200, or the answer is not a result.
func Call(url, body string, timeout time.Duration) (time.Duration, []byte, error) {
	hc := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	defer hc.CloseIdleConnections()
	start := time.Now()
	resp, err := hc.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return time.Since(start), nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil {
		return took, b, err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"result"`)) {
		return took, b, fmt.Errorf("HTTP %s: %s", resp.Status, clip(b))
	}
	return took, b, nil
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
