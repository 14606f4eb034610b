package logs

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
)

// testDNS is a DNS server on loopback answering PTR, A and AAAA queries
// from its tables, so verification is tested against real DNS messages.
type testDNS struct {
	addr     string
	ptr      map[string][]string // IP -> names
	a        map[string][]string // lower-case name -> IPs
	servfail map[string]bool     // IPs whose reverse lookup fails
	queries  atomic.Int64
}

// startDNS starts a testDNS; it stops when the test ends.
func startDNS(t testing.TB, ptr, a map[string][]string, servfail ...string) *testDNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &testDNS{addr: pc.LocalAddr().String(), ptr: map[string][]string{}, a: map[string][]string{}, servfail: map[string]bool{}}
	for ip, names := range ptr {
		rev, err := dns.ReverseAddr(ip)
		if err != nil {
			t.Fatal(err)
		}
		d.ptr[rev] = names
	}
	for n, ips := range a {
		d.a[dns.Fqdn(strings.ToLower(n))] = ips
	}
	for _, ip := range servfail {
		rev, _ := dns.ReverseAddr(ip)
		d.servfail[rev] = true
	}
	started := make(chan struct{})
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(d.serve), NotifyStartedFunc: func() { close(started) }}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = srv.ActivateAndServe()
	}()
	<-started
	t.Cleanup(func() {
		_ = srv.Shutdown()
		wg.Wait()
	})
	return d
}

func (d *testDNS) serve(w dns.ResponseWriter, r *dns.Msg) {
	d.queries.Add(1)
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	if len(r.Question) != 1 {
		m.Rcode = dns.RcodeFormatError
		_ = w.WriteMsg(m)
		return
	}
	q := r.Question[0]
	name := strings.ToLower(q.Name)
	switch q.Qtype {
	case dns.TypePTR:
		if d.servfail[name] {
			m.Rcode = dns.RcodeServerFailure
			break
		}
		names, ok := d.ptr[name]
		if !ok {
			m.Rcode = dns.RcodeNameError
			break
		}
		for _, n := range names {
			m.Answer = append(m.Answer, &dns.PTR{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypePTR, Class: dns.ClassINET, Ttl: 60}, Ptr: dns.Fqdn(n)})
		}
	case dns.TypeA, dns.TypeAAAA:
		ips, ok := d.a[name]
		if !ok {
			m.Rcode = dns.RcodeNameError
			break
		}
		for _, s := range ips {
			ip := net.ParseIP(s)
			if ip4 := ip.To4(); ip4 != nil && q.Qtype == dns.TypeA {
				m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: ip4})
			} else if ip.To4() == nil && q.Qtype == dns.TypeAAAA {
				m.Answer = append(m.Answer, &dns.AAAA{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeAAAA, Class: dns.ClassINET, Ttl: 60}, AAAA: ip})
			}
		}
	default:
		m.Rcode = dns.RcodeNotImplemented
	}
	_ = w.WriteMsg(m)
}
