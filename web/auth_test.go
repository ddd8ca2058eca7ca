package web

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		addr    string
		token   string
		wantErr string
	}{
		{name: "loopback IPv4", addr: "127.0.0.1:8080"},
		{name: "another loopback IPv4", addr: "127.0.0.2:8080"},
		{name: "loopback IPv6", addr: "[::1]:8080"},
		{name: "localhost", addr: "localhost:8080"},
		{name: "a localhost subdomain", addr: "chat.localhost:8080"},
		{name: "every interface", addr: ":8080", wantErr: "HTTP_ADDR :8080 is not a loopback address and neither HTTP_TOKEN nor a named token in ACCESS_FILE is set"},
		{name: "every IPv4 interface", addr: "0.0.0.0:8080", wantErr: "set HTTP_TOKEN"},
		{name: "every IPv6 interface", addr: "[::]:8080", wantErr: "set HTTP_TOKEN"},
		{name: "a LAN address", addr: "192.168.1.5:80", wantErr: "set HTTP_TOKEN"},
		{name: "a host name", addr: "bot.example.com:80", wantErr: "set HTTP_TOKEN"},
		{name: "a name posing as localhost", addr: "localhost.evil.example:80", wantErr: "set HTTP_TOKEN"},
		{name: "every interface with a token", addr: ":8080", token: "s3cret"},
		{name: "a LAN address with a token", addr: "192.168.1.5:80", token: "s3cret"},
		{name: "no port", addr: "127.0.0.1", wantErr: "not host:port"},
		{name: "no port even with a token", addr: "0.0.0.0", token: "s3cret", wantErr: "not host:port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckAddr(tt.addr, tt.token != "")
			if tt.wantErr == "" {
				assert.NoError(t, err, "CheckAddr(%q)", tt.addr)
				return
			}
			if assert.Error(t, err, "CheckAddr(%q)", tt.addr) {
				assert.Contains(t, err.Error(), tt.wantErr, "CheckAddr(%q)", tt.addr)
			}
		})
	}
}
