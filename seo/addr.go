package seo

import (
	"net/netip"
	"strconv"
	"strings"
)

// deniedV4 lists IPv4 ranges that are not reachable on the public internet
// or that reach infrastructure a fetch of a user URL must never touch
// (IANA IPv4 Special-Purpose Address Registry, plus multicast and the
// reserved block).
var deniedV4 = mustPrefixes(
	"0.0.0.0/8",       // "this network", includes 0.0.0.0
	"10.0.0.0/8",      // private (RFC 1918)
	"100.64.0.0/10",   // carrier-grade NAT, includes Alibaba metadata 100.100.100.200
	"127.0.0.0/8",     // loopback
	"169.254.0.0/16",  // link-local, includes cloud metadata 169.254.169.254
	"172.16.0.0/12",   // private (RFC 1918)
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // TEST-NET-1
	"192.88.99.0/24",  // deprecated 6to4 relay anycast
	"192.168.0.0/16",  // private (RFC 1918)
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // TEST-NET-2
	"203.0.113.0/24",  // TEST-NET-3
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, includes broadcast 255.255.255.255
)

// globalV6 is the only IPv6 block allocated for global unicast; everything
// outside it (::, ::1, ::ffff:0:0/96 unless unmapped, 64:ff9b::/96,
// 64:ff9b:1::/48, 100::/64, fc00::/7, fe80::/10, ff00::/8 ...) is refused.
var globalV6 = netip.MustParsePrefix("2000::/3")

// deniedV6 lists special ranges inside 2000::/3.
var deniedV6 = mustPrefixes(
	"2001::/23",     // IETF protocol assignments, includes Teredo 2001::/32
	"2001:db8::/32", // documentation
	"2002::/16",     // 6to4, which embeds any IPv4 address
	"3fff::/20",     // documentation (RFC 9637)
)

// metadataAddrs are cloud metadata endpoints, refused even when private
// addresses are allowed.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack ...
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IMDS over IPv6
}

func mustPrefixes(ss ...string) []netip.Prefix {
	ps := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		ps[i] = netip.MustParsePrefix(s)
	}
	return ps
}

// IsPublicAddr reports whether ip is a public unicast address that the safe
// fetcher may connect to. It is false for loopback, unspecified, private
// (RFC 1918 and IPv6 ULA), carrier-grade NAT, link-local (including cloud
// metadata), documentation, benchmarking, multicast, reserved and broadcast
// addresses, and for every IPv6 address outside 2000::/3 or in one of its
// special ranges (Teredo, 6to4, documentation). An IPv4-mapped IPv6 address
// is judged by the IPv4 address it carries; NAT64 addresses are refused.
func IsPublicAddr(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is4() {
		for _, p := range deniedV4 {
			if p.Contains(ip) {
				return false
			}
		}
		return true
	}
	if !globalV6.Contains(ip) {
		return false
	}
	for _, p := range deniedV6 {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// isMetadataAddr reports whether ip is a cloud metadata endpoint or an
// address no TCP connection should target (unspecified, multicast).
func isMetadataAddr(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if ip.IsUnspecified() || ip.IsMulticast() || ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return true
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return true
		}
	}
	return false
}

// forbiddenHostName reports whether a host name is refused by name:
// localhost and its subdomains, and the .internal and .local special-use
// domains (which include metadata.google.internal). host must be lowercase
// without a trailing dot.
func forbiddenHostName(host string) bool {
	switch {
	case host == "localhost", strings.HasSuffix(host, ".localhost"):
		return true
	case host == "internal", strings.HasSuffix(host, ".internal"):
		return true
	case host == "local", strings.HasSuffix(host, ".local"):
		return true
	}
	return false
}

// isMetadataName reports whether host names a cloud metadata service.
func isMetadataName(host string) bool {
	return host == "metadata.google.internal" || host == "metadata" || host == "instance-data" ||
		strings.HasPrefix(host, "metadata.") && strings.HasSuffix(host, ".internal")
}

// hostAddr returns the IP address a host literally names, accepting the
// forms inet_aton and many URL parsers accept besides the canonical ones:
// "127.1", "2130706433", "0x7f000001", "0177.0.0.1". ok is false for a name
// that needs resolving. Brackets and an IPv6 zone are allowed.
func hostAddr(host string) (ip netip.Addr, ok bool) {
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true
	}
	return parseLegacyIPv4(host)
}

// parseLegacyIPv4 parses the one- to four-part numeric IPv4 forms of
// inet_aton, each part decimal, octal (leading 0) or hex (leading 0x), the
// last part filling the remaining bytes.
func parseLegacyIPv4(s string) (netip.Addr, bool) {
	if s == "" || len(s) > 64 {
		return netip.Addr{}, false
	}
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		switch {
		case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, p = 16, p[2:]
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	last := len(vals) - 1
	var n uint64
	for i, v := range vals[:last] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*uint(i))
	}
	if vals[last] >= 1<<(8*uint(4-last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}
