package target

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// tlsSettings is the description's `tls` object, as rpcarena/targets/tls.py
// writes it: absolute PEM file paths, and for gRPC with --insecure the
// certificate its server presented (fetched before measuring) and the name in it.
type tlsSettings struct {
	CACert     string `json:"cacert"`
	Cert       string `json:"cert"`
	Key        string `json:"key"`
	Insecure   bool   `json:"insecure"`
	ServerPEM  string `json:"server_pem"`
	ServerName string `json:"server_name"`
}

// httpsConfig is tls.py's context(): the CA given (default: the system's), no
// verification at all with --insecure (curl's -k), and the client pair.
func (s *tlsSettings) httpsConfig() (*tls.Config, error) {
	cfg, err := s.config(s.CACert, "")
	if err == nil {
		cfg.InsecureSkipVerify = s.Insecure
	}
	return cfg, err
}

// grpcConfig is tls.py's grpc_credentials(): as grpcio cannot skip verification,
// --insecure trusts the very certificate the server presented, under its name.
func (s *tlsSettings) grpcConfig() (*tls.Config, error) {
	if s.ServerPEM != "" {
		return s.config("", s.ServerPEM)
	}
	return s.config(s.CACert, "")
}

// config trusts the roots in a file or PEM text (neither: the system's) and
// presents the client certificate when there is one.
func (s *tlsSettings) config(caFile, caPEM string) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: s.ServerName}
	pem := []byte(caPEM)
	if caFile != "" {
		var err error
		if pem, err = os.ReadFile(caFile); err != nil {
			return nil, unloadable(err)
		}
	}
	if len(pem) > 0 {
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, unloadable(fmt.Errorf("no certificate in the CA's PEM"))
		}
	}
	if s.Cert != "" {
		pair, err := tls.LoadX509KeyPair(s.Cert, s.Key)
		if err != nil {
			return nil, unloadable(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

func unloadable(err error) error {
	return fmt.Errorf("the TLS files do not load (%v): give PEM files "+
		"(--cacert a CA, --cert a certificate, --key its private key)", err)
}
