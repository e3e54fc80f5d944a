package connectgo

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"

	"rpcarena/workers/go/internal/limits"

	"connectrpc.com/connect"
)

// errInflated stops a body that inflates past the bound: connect reads one
// byte past readMaxBytes to see a message is too large, then reads the rest to
// count it, which a gzip bomb of 4 MiB would stretch to gigabytes of CPU.
var errInflated = errors.New("gzip body inflates past the request bound")

// boundedGzip is connect's gzip (compress/gzip, the handler's default, which a
// client asks for with Accept-Encoding) with a decompressor that gives up a
// little past limits.MaxRequestBytes: connect then answers RESOURCE_EXHAUSTED.
func boundedGzip() connect.HandlerOption {
	return connect.WithCompression("gzip",
		func() connect.Decompressor { return &inflater{} },
		func() connect.Compressor { return gzip.NewWriter(io.Discard) })
}

type inflater struct {
	gzip gzip.Reader
	left int64
}

func (i *inflater) Reset(r io.Reader) error {
	i.left = limits.MaxRequestBytes + 1 // connect's own check needs the byte past the bound
	return i.gzip.Reset(r)
}

func (i *inflater) Read(p []byte) (int, error) {
	if i.left <= 0 {
		return 0, errInflated
	}
	n, err := i.gzip.Read(p[:min(int64(len(p)), i.left)])
	i.left -= int64(n)
	return n, err
}

func (i *inflater) Close() error { return i.gzip.Close() }

// limited stops reading a body past the bound, whatever its Content-Length or
// chunks say: connect reads to the end of a body over readMaxBytes to say how
// large it was, which a peer announcing 10 GiB would hold for minutes.
// connect answers http.MaxBytesReader's error with RESOURCE_EXHAUSTED.
func limited(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, limits.MaxRequestBytes)
		h.ServeHTTP(w, r)
	})
}
