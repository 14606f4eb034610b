package chromium

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"

	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

func TestSessionCaps(t *testing.T) {
	prx, err := startProxy(seo.NewFetcher(nil).DialContext, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer prx.close()
	s := newSession(withDefaults(&render.Request{URL: "http://example.com/"}), prx)
	for i := range MaxResources + 100 {
		id := network.RequestID(fmt.Sprint(i))
		s.listen(&network.EventRequestWillBeSent{RequestID: id, Type: network.ResourceTypeImage,
			Request: &network.Request{URL: fmt.Sprintf("http://example.com/%d.png", i)}})
		s.listen(&network.EventLoadingFinished{RequestID: id, EncodedDataLength: 10})
	}
	long := strings.Repeat("é", MaxText)
	for range MaxMessages + 50 {
		s.listen(&runtime.EventExceptionThrown{ExceptionDetails: &runtime.ExceptionDetails{Text: long}})
		s.listen(&runtime.EventConsoleAPICalled{Type: runtime.ConsoleAPICalledTypeError,
			Args: []*runtime.RemoteObject{{Type: runtime.RemoteObjectTypeString, Value: []byte(`"bad"`)}}})
		s.listen(&runtime.EventConsoleAPICalled{Type: runtime.ConsoleAPICalledTypeLog,
			Args: []*runtime.RemoteObject{{Type: runtime.RemoteObjectTypeString, Value: []byte(`"fine"`)}}})
	}
	res := s.result()
	if len(res.Resources) != MaxResources || res.ResourcesOmitted != 100 {
		t.Errorf("%d resources, %d omitted", len(res.Resources), res.ResourcesOmitted)
	}
	if len(res.Weight) != 1 || res.Weight[0] != (render.Weight{Type: "image", Requests: MaxResources + 100, Bytes: 10 * (MaxResources + 100)}) {
		t.Errorf("weight %+v", res.Weight)
	}
	if len(res.Errors) != MaxMessages || res.ErrorsOmitted != 50 || len(res.Console) != MaxMessages || res.ConsoleOmitted != 50 {
		t.Errorf("%d errors (%d omitted), %d console (%d omitted)", len(res.Errors), res.ErrorsOmitted, len(res.Console), res.ConsoleOmitted)
	}
	if txt := res.Errors[0].Text; len(txt) > MaxText || !utf8.ValidString(txt) || !strings.HasSuffix(txt, "…") {
		t.Errorf("error text of %d bytes, valid %v", len(txt), utf8.ValidString(txt))
	}
	if res.Console[0].Text != "bad" {
		t.Errorf("console text %q", res.Console[0].Text)
	}
	if len(s.reqs) > MaxResources {
		t.Errorf("%d requests remembered", len(s.reqs))
	}
	// Events after the Result do not change it.
	s.listen(&network.EventRequestWillBeSent{RequestID: "late", Request: &network.Request{URL: "http://example.com/late"}})
	if res.ResourcesOmitted != 100 || s.res.ResourcesOmitted != 100 {
		t.Error("an event after the Result changed it")
	}
}

func TestHostPort(t *testing.T) {
	for in, want := range map[string]string{
		"http://Example.com/a":   "example.com:80",
		"https://example.com/":   "example.com:443",
		"wss://example.com/s":    "example.com:443",
		"ws://127.0.0.1:9000/":   "127.0.0.1:9000",
		"http://[::1]:8080/":     "[::1]:8080",
		"http://rebind.test:1/x": "rebind.test:1",
		"::not a url":            "",
	} {
		if got := hostPort(in); got != want {
			t.Errorf("hostPort(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestProxy checks the proxy alone: plain http is forwarded, CONNECT is
// tunnelled, refused addresses are recorded, and the byte cap cuts.
func TestProxy(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			io.WriteString(w, strings.Repeat("x", 1<<20))
			return
		}
		io.WriteString(w, "hello")
	}))
	ap := netip.MustParseAddrPort(srv.Listener.Addr().String())
	f := seo.NewFetcher(&seo.FetcherOptions{AllowAddrs: []netip.Prefix{netip.PrefixFrom(ap.Addr(), 32)}, AllowedPorts: []int{int(ap.Port())}})
	prx, err := startProxy(f.DialContext, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer prx.close()
	get := func(target string) (string, error) {
		c, err := net.Dial("tcp", prx.ln.Addr().String())
		if err != nil {
			return "", err
		}
		defer c.Close()
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if body, err := get(srv.URL + "/"); err != nil || body != "hello" {
		t.Errorf("forwarded GET: %q, %v", body, err)
	}
	// CONNECT to the server, then a request through the tunnel.
	c, err := net.Dial("tcp", prx.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %[1]s\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", ap)
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	c.Close()
	if string(b) != "hello" {
		t.Errorf("tunnelled body %q", b)
	}
	// Refused: another port, the metadata address.
	for _, hp := range []string{"127.0.0.1:1", "169.254.169.254:" + fmt.Sprint(ap.Port())} {
		c, err := net.Dial("tcp", prx.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %[1]s\r\n\r\n", hp)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("CONNECT %s: %v %v", hp, resp, err)
		}
		if _, ok := prx.refusal(hp); !ok {
			t.Errorf("refusal of %s not recorded", hp)
		}
	}
	if _, err := get("http://169.254.169.254:" + fmt.Sprint(ap.Port()) + "/"); err == nil {
		t.Error("a forwarded request to a metadata address got a response")
	}
	// The byte cap: 1 MiB from a proxy capped at 64 KiB.
	body, err := get(srv.URL + "/big")
	if err == nil || len(body) >= 1<<20 || !prx.over() {
		t.Errorf("capped GET: %d bytes, %v, over %v", len(body), err, prx.over())
	}
	if _, err := get(srv.URL + "/"); err == nil {
		t.Error("a request after the cap was forwarded")
	}
}
