package seo

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

func TestIsPublicAddr(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// transitionForms encode an IPv4 address in each IPv6 transition form that
// can carry one.
var transitionForms = []struct {
	name   string
	encode func(a [4]byte) string
}{
	{"ipv4-mapped", func(a [4]byte) string { return fmt.Sprintf("::ffff:%d.%d.%d.%d", a[0], a[1], a[2], a[3]) }},
	{"ipv4-compatible", func(a [4]byte) string { return fmt.Sprintf("::%d.%d.%d.%d", a[0], a[1], a[2], a[3]) }},
	{"siit ipv4-translated", func(a [4]byte) string { return fmt.Sprintf("::ffff:0:%d.%d.%d.%d", a[0], a[1], a[2], a[3]) }},
	{"nat64 hex", func(a [4]byte) string { return fmt.Sprintf("64:ff9b::%02x%02x:%02x%02x", a[0], a[1], a[2], a[3]) }},
	{"nat64 dotted", func(a [4]byte) string { return fmt.Sprintf("64:ff9b::%d.%d.%d.%d", a[0], a[1], a[2], a[3]) }},
	{"nat64 local-use /96", func(a [4]byte) string { return fmt.Sprintf("64:ff9b:1::%02x%02x:%02x%02x", a[0], a[1], a[2], a[3]) }},
	{"nat64 local-use /48", func(a [4]byte) string { return fmt.Sprintf("64:ff9b:1:%02x%02x:%02x:%02x00::", a[0], a[1], a[2], a[3]) }},
	{"nat64 local-use /56", func(a [4]byte) string { return fmt.Sprintf("64:ff9b:1:%02x:%02x:%02x%02x::", a[0], a[1], a[2], a[3]) }},
	{"nat64 local-use /64", func(a [4]byte) string {
		return fmt.Sprintf("64:ff9b:1:0:%02x:%02x%02x:%02x00:0", a[0], a[1], a[2], a[3])
	}},
	{"6to4", func(a [4]byte) string { return fmt.Sprintf("2002:%02x%02x:%02x%02x::1", a[0], a[1], a[2], a[3]) }},
	{"teredo", func(a [4]byte) string {
		return fmt.Sprintf("2001:0:4136:e378:8000:63bf:%02x%02x:%02x%02x", ^a[0], ^a[1], ^a[2], ^a[3])
	}},
	{"isatap link-local", func(a [4]byte) string { return fmt.Sprintf("fe80::5efe:%d.%d.%d.%d", a[0], a[1], a[2], a[3]) }},
	{"isatap global", func(a [4]byte) string {
		return fmt.Sprintf("2600:1f18:1:2:200:5efe:%d.%d.%d.%d", a[0], a[1], a[2], a[3])
	}},
}

// embeddedKinds are the IPv4 addresses the transition forms carry.
var embeddedKinds = []struct {
	name string
	ip   [4]byte
}{
	{"metadata", [4]byte{169, 254, 169, 254}},
	{"alibaba metadata", [4]byte{100, 100, 100, 200}},
	{"ecs metadata", [4]byte{169, 254, 170, 2}},
	{"loopback", [4]byte{127, 0, 0, 1}},
	{"private", [4]byte{10, 1, 2, 3}},
	{"public", [4]byte{93, 184, 216, 34}},
}

func TestTransitionEncodings(t *testing.T) {
	t.Parallel()
	public := NewFetcher(nil)
	private := NewFetcher(&FetcherOptions{AllowPrivate: true})
	// AllowAddrs covering every range must not let an always-refused
	// address through either.
	wide := NewFetcher(&FetcherOptions{AllowAddrs: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}})
	for _, form := range transitionForms {
		for _, kind := range embeddedKinds {
			t.Run(form.name+"/"+kind.name, func(t *testing.T) {
				s := form.encode(kind.ip)
				ip, err := netip.ParseAddr(s)
				if err != nil {
					t.Fatalf("bad test address %q: %v", s, err)
				}
				var buf [maxEmbedded]netip.Addr
				carried := false
				for _, e := range embeddedIPv4(ip.Unmap(), buf[:0]) {
					carried = carried || e == netip.AddrFrom4(kind.ip)
				}
				if form.name != "ipv4-mapped" && !carried {
					t.Fatalf("embeddedIPv4(%s) = %v, want it to carry %v", ip, embeddedIPv4(ip.Unmap(), nil), netip.AddrFrom4(kind.ip))
				}
				isPublic := kind.name == "public" && (form.name == "ipv4-mapped" || form.name == "isatap global")
				// The IPv4-mapped form is the IPv4 address itself (a
				// dual-stack socket connects to it as such); every other
				// encoding of loopback is refused even with AllowPrivate.
				always := strings.Contains(kind.name, "metadata") || kind.name == "loopback" && form.name != "ipv4-mapped"
				if got := IsPublicAddr(ip); got != isPublic {
					t.Errorf("IsPublicAddr(%s) = %v, want %v", ip, got, isPublic)
				}
				if got := public.addrAllowed(ip); got != isPublic {
					t.Errorf("default fetcher allows %s: %v, want %v", ip, got, isPublic)
				}
				if got := private.addrAllowed(ip); got != !always {
					t.Errorf("AllowPrivate fetcher allows %s: %v, want %v", ip, got, !always)
				}
				if got := wide.addrAllowed(ip); got != !always {
					t.Errorf("AllowAddrs ::/0 fetcher allows %s: %v, want %v", ip, got, !always)
				}
				why := alwaysRefused(ip)
				if (why != "") != always {
					t.Errorf("alwaysRefused(%s) = %q, want refused %v", ip, why, always)
				}
				// The literal in a URL is refused (or not) the same way.
				_, err = private.CheckURL(context.Background(), "http://["+s+"]/")
				if got := errors.Is(err, ErrForbiddenAddress); got != always {
					t.Errorf("AllowPrivate CheckURL([%s]) = %v, want refused %v", s, err, always)
				}
			})
		}
	}
	// IPv6's own unspecified and loopback addresses are not IPv4-compatible
	// encodings of 0.0.0.0 and 0.0.0.1.
	if got := embeddedIPv4(netip.MustParseAddr("::1"), nil); len(got) != 0 {
		t.Errorf("embeddedIPv4(::1) = %v, want none", got)
	}
	if !private.addrAllowed(netip.MustParseAddr("::1")) {
		t.Error("AllowPrivate refuses ::1")
	}
}

// TestAlwaysRefusedNames checks that a refusal names the kind of address
// refused: an unspecified, multicast or broadcast address is not called a
// cloud metadata address.
func TestAlwaysRefusedNames(t *testing.T) {
	for _, tc := range []struct{ ip, want string }{
		{"169.254.169.254", "is a cloud metadata address and is always refused"},
		{"fd00:ec2::254", "is a cloud metadata address and is always refused"},
		{"0.0.0.0", "is the unspecified address and is always refused"},
		{"::", "is the unspecified address and is always refused"},
		{"255.255.255.255", "is the broadcast address and is always refused"},
		{"224.0.0.1", "is a multicast address and is always refused"},
		{"ff02::1", "is a multicast address and is always refused"},
		{"64:ff9b::a9fe:a9fe", "embeds 169.254.169.254, a cloud metadata address, and is always refused"},
		{"64:ff9b::7f00:1", "embeds the loopback address 127.0.0.1 and is always refused"},
		{"8.8.8.8", ""},
	} {
		if got := alwaysRefused(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("alwaysRefused(%s) = %q, want %q", tc.ip, got, tc.want)
		}
	}
}
