package seo

import (
	"net/netip"
	"testing"
)

func TestIsPublicAddr(t *testing.T) {
	tests := []struct {
		name string
		ip   string
		want bool
	}{
		{"public v4", "93.184.216.34", true},
		{"public v4 dns", "8.8.8.8", true},
		{"public v6", "2606:2800:220:1:248:1893:25c8:1946", true},
		{"public v4 mapped", "::ffff:8.8.8.8", true},
		{"this network", "0.0.0.0", false},
		{"this network range", "0.1.2.3", false},
		{"private 10", "10.1.2.3", false},
		{"private 172.16", "172.16.0.1", false},
		{"private 172.31", "172.31.255.255", false},
		{"just outside 172.16/12", "172.32.0.1", true},
		{"private 192.168", "192.168.1.1", false},
		{"cgnat", "100.64.0.1", false},
		{"cgnat alibaba metadata", "100.100.100.200", false},
		{"just outside cgnat", "100.128.0.1", true},
		{"loopback", "127.0.0.1", false},
		{"loopback range", "127.255.0.9", false},
		{"link-local metadata", "169.254.169.254", false},
		{"ietf 192.0.0/24", "192.0.0.8", false},
		{"test-net-1", "192.0.2.1", false},
		{"test-net-2", "198.51.100.7", false},
		{"test-net-3", "203.0.113.9", false},
		{"benchmark", "198.18.0.1", false},
		{"benchmark upper", "198.19.255.254", false},
		{"multicast", "224.0.0.1", false},
		{"reserved", "240.0.0.1", false},
		{"broadcast", "255.255.255.255", false},
		{"v6 unspecified", "::", false},
		{"v6 loopback", "::1", false},
		{"v4 mapped loopback", "::ffff:127.0.0.1", false},
		{"v4 mapped metadata", "::ffff:169.254.169.254", false},
		{"nat64", "64:ff9b::7f00:1", false},
		{"nat64 public embedded", "64:ff9b::808:808", false},
		{"nat64 local", "64:ff9b:1::7f00:1", false},
		{"6to4", "2002:7f00:1::", false},
		{"teredo", "2001::1", false},
		{"documentation v6", "2001:db8::1", false},
		{"ula", "fc00::1", false},
		{"ula fd", "fdff::1", false},
		{"aws imds v6", "fd00:ec2::254", false},
		{"link-local v6", "fe80::1", false},
		{"link-local v6 zone", "fe80::1%eth0", false},
		{"multicast v6", "ff02::1", false},
		{"outside 2000::/3", "4000::1", false},
		{"discard", "100::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ip := netip.MustParseAddr(tt.ip)
			if got := IsPublicAddr(ip); got != tt.want {
				t.Errorf("IsPublicAddr(%s) = %v, want %v", tt.ip, got, tt.want)
			}
		})
	}
	if IsPublicAddr(netip.Addr{}) {
		t.Error("the zero Addr is public")
	}
}

func TestHostAddr(t *testing.T) {
	tests := []struct {
		name string
		host string
		want string // "" means not an address
	}{
		{"dotted", "127.0.0.1", "127.0.0.1"},
		{"short", "127.1", "127.0.0.1"},
		{"three parts", "10.1.258", "10.1.1.2"},
		{"decimal", "2130706433", "127.0.0.1"},
		{"hex", "0x7f000001", "127.0.0.1"},
		{"hex upper", "0X7F000001", "127.0.0.1"},
		{"octal", "0177.0.0.1", "127.0.0.1"},
		{"mixed", "0x7f.1", "127.0.0.1"},
		{"bracketed v6", "[::1]", "::1"},
		{"trailing dot", "127.0.0.1.", "127.0.0.1"},
		{"name", "example.com", ""},
		{"numeric label name", "1.example", ""},
		{"too large last part", "1.2.3.256", ""},
		{"too large first part", "256.1", ""},
		{"too large decimal", "4294967296", ""},
		{"five parts", "1.2.3.4.5", ""},
		{"empty part", "1..2", ""},
		{"bad octal", "08.0.0.1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ip, ok := hostAddr(tt.host)
			if tt.want == "" {
				if ok {
					t.Fatalf("hostAddr(%q) = %s, want not an address", tt.host, ip)
				}
				return
			}
			if !ok || ip != netip.MustParseAddr(tt.want) {
				t.Fatalf("hostAddr(%q) = %s, %v; want %s", tt.host, ip, ok, tt.want)
			}
		})
	}
}

func TestForbiddenHostName(t *testing.T) {
	tests := []struct {
		host     string
		want     bool
		metadata bool
	}{
		{"localhost", true, false},
		{"app.localhost", true, false},
		{"metadata.google.internal", true, true},
		{"db.internal", true, false},
		{"printer.local", true, false},
		{"example.com", false, false},
		{"localhost.example.com", false, false},
		{"internal.example.com", false, false},
		{"notlocal", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			if got := forbiddenHostName(tt.host); got != tt.want {
				t.Errorf("forbiddenHostName(%q) = %v, want %v", tt.host, got, tt.want)
			}
			if got := isMetadataName(tt.host); got != tt.metadata {
				t.Errorf("isMetadataName(%q) = %v, want %v", tt.host, got, tt.metadata)
			}
		})
	}
}
