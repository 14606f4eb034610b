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

// Prefixes of the IPv6 transition mechanisms whose addresses carry an IPv4
// address (see embeddedIPv4). The IPv4-mapped form ::ffff:0:0/96 is not
// listed: netip.Addr.Unmap turns it into the IPv4 address it is.
var (
	v4Compat   = netip.MustParsePrefix("::/96")           // IPv4-compatible (RFC 4291, deprecated)
	siit       = netip.MustParsePrefix("::ffff:0:0:0/96") // IPv4-translated, SIIT (RFC 2765)
	nat64WKP   = netip.MustParsePrefix("64:ff9b::/96")    // NAT64 well-known prefix (RFC 6052)
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")  // NAT64 local-use prefix (RFC 8215)
	sixToFour  = netip.MustParsePrefix("2002::/16")       // 6to4 (RFC 3056)
	teredo     = netip.MustParsePrefix("2001::/32")       // Teredo (RFC 4380)
)

// maxEmbedded is the most IPv4 addresses embeddedIPv4 returns for one
// address (the four layouts of the NAT64 local-use prefix plus an ISATAP
// interface identifier).
const maxEmbedded = 6

// embeddedIPv4 appends to dst the IPv4 addresses that ip carries in an IPv6
// transition encoding, so that a refused IPv4 address is refused in every
// form that can reach it: IPv4-compatible ::a.b.c.d (except :: and ::1),
// IPv4-translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::a.b.c.d, the NAT64
// local-use prefix 64:ff9b:1::/48 in each RFC 6052 layout its operator may
// use (/48, /56, /64, /96), 6to4 2002:AABB:CCDD::, Teredo (the server
// address and the client address, stored XOR 0xffffffff) and ISATAP
// interface identifiers (…:0:5efe:a.b.c.d and …:200:5efe:a.b.c.d under any
// prefix). ip must be unmapped and without a zone; an IPv4 ip carries none.
func embeddedIPv4(ip netip.Addr, dst []netip.Addr) []netip.Addr {
	if !ip.Is6() {
		return dst
	}
	b := ip.As16()
	v4 := func(a, b2, c, d byte) netip.Addr { return netip.AddrFrom4([4]byte{a, b2, c, d}) }
	last := v4(b[12], b[13], b[14], b[15])
	switch {
	case v4Compat.Contains(ip):
		if last.As4()[0] != 0 || last.As4()[1] != 0 || last.As4()[2] != 0 || last.As4()[3] > 1 {
			dst = append(dst, last) // :: and ::1 are IPv6's own unspecified and loopback
		}
	case siit.Contains(ip), nat64WKP.Contains(ip):
		dst = append(dst, last)
	case nat64Local.Contains(ip):
		dst = append(dst,
			v4(b[6], b[7], b[9], b[10]),   // /48: bits 64-71 are the reserved octet
			v4(b[7], b[9], b[10], b[11]),  // /56
			v4(b[9], b[10], b[11], b[12]), // /64
			last,                          // /96
		)
	case sixToFour.Contains(ip):
		dst = append(dst, v4(b[2], b[3], b[4], b[5]))
	case teredo.Contains(ip):
		dst = append(dst, v4(b[4], b[5], b[6], b[7]), v4(^b[12], ^b[13], ^b[14], ^b[15]))
	}
	// ISATAP (RFC 5214): the interface identifier 0000:5efe or 0200:5efe
	// (with the universal/local and group bits either way) then the IPv4
	// address, under any /64 prefix.
	if b[8]&^0x03 == 0 && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe {
		dst = append(dst, last)
	}
	return dst
}

// IsPublicAddr reports whether ip is a public unicast address that the safe
// fetcher may connect to. It is false for loopback, unspecified, private
// (RFC 1918 and IPv6 ULA), carrier-grade NAT, link-local (including cloud
// metadata), documentation, benchmarking, multicast, reserved and broadcast
// addresses, and for every IPv6 address outside 2000::/3 or in one of its
// special ranges (Teredo, 6to4, documentation). An IPv4-mapped IPv6 address
// is judged by the IPv4 address it carries; the other transition encodings
// (IPv4-compatible, IPv4-translated, NAT64, 6to4, Teredo) are refused
// whatever they carry, and an address with an ISATAP interface identifier
// is public only if the IPv4 address it carries is.
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
	var buf [maxEmbedded]netip.Addr
	for _, v4 := range embeddedIPv4(ip, buf[:0]) {
		if !IsPublicAddr(v4) {
			return false
		}
	}
	return true
}

// neverTarget names what ip is when no connection may target it,
// whatever the options: a cloud metadata endpoint, the unspecified address,
// a multicast address or the broadcast address; "" for any other.
func neverTarget(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap()
	switch {
	case ip.IsUnspecified():
		return "the unspecified address"
	case ip.IsMulticast():
		return "a multicast address"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "the broadcast address"
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return "a cloud metadata address"
		}
	}
	return ""
}

// alwaysRefused says why ip is refused whatever the options (AllowPrivate,
// AllowAddrs), or "" when it is not: a cloud metadata, unspecified,
// multicast or broadcast address (neverTarget), or an IPv6 transition
// encoding (see embeddedIPv4) of a metadata or loopback IPv4 address. A
// transition encoding never legitimately names this host or a metadata
// service (RFC 6052 forbids non-global IPv4 in the well-known NAT64
// prefix); it only hides them from checks that compare addresses.
func alwaysRefused(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap()
	if what := neverTarget(ip); what != "" {
		return "is " + what + " and is always refused"
	}
	var buf [maxEmbedded]netip.Addr
	for _, v4 := range embeddedIPv4(ip, buf[:0]) {
		switch what := neverTarget(v4); {
		case what != "" && !v4.IsUnspecified():
			return "embeds " + v4.String() + ", " + what + ", and is always refused"
		case v4.IsLoopback():
			return "embeds the loopback address " + v4.String() + " and is always refused"
		}
	}
	return ""
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
