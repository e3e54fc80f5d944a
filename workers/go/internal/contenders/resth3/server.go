package resth3

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"rpcarena/workers/go/internal/contenders/restgo"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Per connection, a peer may open this many request streams at once (quic-go's
// default, said here) and have this much sent and not yet read (flow control).
const (
	maxStreams        = 100
	connectionWindow  = 4 * limits.MaxRequestBytes
	streamWindowBytes = limits.MaxRequestBytes
)

type server struct{ h3 *http3.Server }

// NewServer is rest-go's HTTP/JSON handler behind quic-go's HTTP/3 server.
func NewServer(opts core.ServerOptions) (core.Server, error) {
	if opts.Schema != "" {
		return nil, errors.New("rest-h3-go does not serve a user's schema")
	}
	tlsConfig, err := selfSigned()
	if err != nil {
		return nil, err
	}
	idle := limits.IdleTimeout()
	return &server{h3: &http3.Server{
		Handler:        deadlines(restgo.NewHandler(nil), idle),
		TLSConfig:      http3.ConfigureTLSConfig(tlsConfig),
		QUICConfig:     quicConfig(idle),
		MaxHeaderBytes: 64 << 10,
		IdleTimeout:    idle,
	}}, nil
}

// quicConfig bounds what a peer can hold: a connection that sends nothing for
// idle is closed (QUIC's idle timeout, silent), a handshake must finish within
// it, and streams and unread bytes are capped per connection.
func quicConfig(idle time.Duration) *quic.Config {
	return &quic.Config{
		MaxIdleTimeout:                 idle,
		HandshakeIdleTimeout:           min(idle, 10*time.Second),
		MaxIncomingStreams:             maxStreams,
		InitialStreamReceiveWindow:     streamWindowBytes,
		MaxStreamReceiveWindow:         streamWindowBytes,
		InitialConnectionReceiveWindow: connectionWindow,
		MaxConnectionReceiveWindow:     connectionWindow,
	}
}

// deadlines gives each request the idle timeout to arrive whole and its reply
// to be taken: http3.Server has no ReadTimeout, and a body trickled a byte at a
// time would otherwise hold its stream for as long as it trickles.
func deadlines(h http.Handler, idle time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		deadline := time.Now().Add(idle)
		rc.SetReadDeadline(deadline)
		rc.SetWriteDeadline(deadline)
		h.ServeHTTP(w, r)
	})
}

// Serve takes the UDP port of lis's number on its host: `serve` binds TCP, and
// HTTP/3 is QUIC over UDP. The TCP listener is closed, since nothing speaks
// HTTP/3 over TCP (a TCP peer is refused rather than left waiting).
func (s *server) Serve(lis net.Listener) error {
	addr := lis.Addr().(*net.TCPAddr)
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: addr.IP, Port: addr.Port})
	lis.Close()
	if err != nil {
		return fmt.Errorf("cannot bind UDP %s: %v", addr, err)
	}
	return s.h3.Serve(udp)
}

func (s *server) Stop() { s.h3.Close() }
