package redisfrontier_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
	"github.com/seokit/seokit/crawler/redisfrontier"
	"github.com/seokit/seokit/internal/redistest"
	"github.com/seokit/seokit/seo"
)

// client returns a client of srv closed when t ends.
func client(t testing.TB, srv *redistest.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { c.Close() })
	return c
}

func newID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "test-" + hex.EncodeToString(b)
}

func open(t testing.TB, c redis.UniversalClient, id string, o *redisfrontier.Options) *redisfrontier.Frontier {
	t.Helper()
	f, err := redisfrontier.New(c, id, o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv)
	crawlertest.RunFrontier(t, func(t *testing.T) crawler.Frontier { return open(t, c, newID(), nil) })
}

func TestSharedConformance(t *testing.T) {
	srv := redistest.Start(t)
	prefix := newID()
	crawlertest.RunSharedFrontier(t, func(t *testing.T, id string) crawler.SharedFrontier {
		return open(t, client(t, srv), prefix+"-"+id, nil)
	})
}

// Three workers over Redis fetch exactly MaxPages pages in total.
func TestSharedCrawlCap(t *testing.T) {
	srv := redistest.Start(t)
	crawlertest.RunSharedCrawlCap(t, func(t *testing.T, id string) crawler.SharedFrontier {
		return open(t, client(t, srv), id, nil)
	})
}

func TestNewRejectsBadInput(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	long := make([]byte, redisfrontier.MaxCrawlIDLength+1)
	for i := range long {
		long[i] = 'a'
	}
	cases := []struct {
		name, id string
	}{
		{"empty", ""},
		{"too_long", string(long)},
		{"brace", "a{b}"},
		{"glob", "crawl*"},
		{"space", "a b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := redisfrontier.New(c, tc.id, nil)
			var ie *seo.InputError
			if !errors.As(err, &ie) || ie.Field != "crawlID" || !errors.Is(err, seo.ErrInvalidInput) {
				t.Fatalf("New(%q) = %v, want an InputError on crawlID", tc.id, err)
			}
		})
	}
	if _, err := redisfrontier.New(nil, "x", nil); !errors.Is(err, seo.ErrInvalidInput) {
		t.Fatalf("New(nil client) = %v", err)
	}
	if _, err := redisfrontier.NewHostGate(nil, nil); !errors.Is(err, seo.ErrInvalidInput) {
		t.Fatalf("NewHostGate(nil client) = %v", err)
	}
}

func TestPushRejectsEmptyURL(t *testing.T) {
	srv := redistest.Start(t)
	f := open(t, client(t, srv), newID(), nil)
	defer f.Close()
	ctx := context.Background()
	_, err := f.Push(ctx, []crawler.Item{{URL: "https://e.com/a"}, {URL: ""}})
	var ie *seo.InputError
	if !errors.As(err, &ie) || ie.Field != "items[1].url" {
		t.Fatalf("Push with an empty URL = %v, want InputError on items[1].url", err)
	}
	if n, _ := f.Len(ctx); n != 0 {
		t.Fatalf("Len after refused Push = %d, want 0 (nothing half-added)", n)
	}
}

// A worker that dies (its connection gone, so no renewal) loses its lease:
// after Lease the item is queued again for another worker, first of its
// depth. An item marked Done is never handed out again.
func TestLeaseExpiryRequeues(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	id := newID()
	const lease = 300 * time.Millisecond
	deadClient := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	dead := open(t, deadClient, id, &redisfrontier.Options{Lease: lease})
	live := open(t, client(t, srv), id, &redisfrontier.Options{Lease: lease})
	defer live.Close()
	if _, err := live.Push(ctx, []crawler.Item{{URL: "https://e.com/a", Depth: 1}, {URL: "https://e.com/b", Depth: 1}, {URL: "https://e.com/c", Depth: 1}}); err != nil {
		t.Fatal(err)
	}
	got, err := dead.Pop(ctx, 2)
	if err != nil || len(got) != 2 {
		t.Fatalf("Pop = %v, %v", got, err)
	}
	if err := dead.Done(ctx, "https://e.com/a"); err != nil {
		t.Fatal(err)
	}
	deadClient.Close() // the worker dies holding e.com/b
	defer dead.Close()

	first, err := live.Pop(ctx, 5)
	if err != nil || len(first) != 1 || first[0].URL != "https://e.com/c" {
		t.Fatalf("Pop before the lease ran out = %v, %v; want only e.com/c", first, err)
	}
	if _, fl, _ := live.Pending(ctx); fl != 2 {
		t.Fatalf("in flight = %d, want 2 (b leased to the dead worker, c to live)", fl)
	}
	time.Sleep(2 * lease)
	// live renews its own lease of e.com/c meanwhile.
	again, err := live.Pop(ctx, 5)
	if err != nil || len(again) != 1 || again[0].URL != "https://e.com/b" || again[0].Depth != 1 {
		t.Fatalf("Pop after the lease ran out = %v, %v; want e.com/b again", again, err)
	}
	for _, u := range []string{"https://e.com/b", "https://e.com/c"} {
		if err := live.Done(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * lease)
	if rest, _ := live.Pop(ctx, 5); len(rest) != 0 {
		t.Fatalf("Pop after all Done = %v, want nothing", rest)
	}
	if q, fl, _ := live.Pending(ctx); q != 0 || fl != 0 {
		t.Fatalf("Pending = %d, %d; want 0, 0", q, fl)
	}
}

// Close hands a worker's unfinished items back at once.
func TestCloseReleasesLeases(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	id := newID()
	a := open(t, client(t, srv), id, nil)
	b := open(t, client(t, srv), id, nil)
	defer b.Close()
	if _, err := a.Push(ctx, []crawler.Item{{URL: "https://e.com/x", Depth: 0}, {URL: "https://e.com/y", Depth: 3}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Pop(ctx, 2); len(got) != 2 {
		t.Fatalf("Pop = %v", got)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Pop(ctx, 1); err == nil {
		t.Fatal("Pop after Close succeeded")
	}
	got, err := b.Pop(ctx, 5)
	if err != nil || fmt.Sprint(len(got)) != "2" || got[0].URL != "https://e.com/x" || got[1].URL != "https://e.com/y" {
		t.Fatalf("Pop after the other worker closed = %v, %v; want x then y", got, err)
	}
	if err := b.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	keys, err := client(t, srv).Keys(ctx, "seokit:crawl:{"+id+"}:*").Result()
	if err != nil || len(keys) != 0 {
		t.Fatalf("keys left after Delete: %v, %v", keys, err)
	}
}

// Redis stopping is an error, never an empty frontier.
func TestServerDown(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	f := open(t, c, newID(), nil)
	defer f.Close()
	srv.Stop()
	if _, err := f.Pop(ctx, 1); err == nil {
		t.Error("Pop with Redis down succeeded")
	}
	if _, _, err := f.Pending(ctx); err == nil {
		t.Error("Pending with Redis down succeeded")
	}
	g, _ := redisfrontier.NewHostGate(c, nil)
	if err := g.Wait(ctx, "e.com", crawler.HostLimit{Interval: time.Millisecond, Burst: 1}); err == nil {
		t.Error("HostGate.Wait with Redis down succeeded")
	}
}

// An entry the frontier cannot read (written by something else) is an
// error once, then gone: it cannot keep the crawl pending for ever.
func TestCorruptEntryDropped(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv)
	ctx := context.Background()
	id := newID()
	f := open(t, c, id, nil)
	defer f.Close()
	p := "seokit:crawl:{" + id + "}:"
	c.RPush(ctx, p+"q:0", "0123456789abnot json")
	c.ZAdd(ctx, p+"depths", redis.Z{Score: 0, Member: "0"})
	c.Incr(ctx, p+"queued")
	if _, err := f.Pop(ctx, 5); err == nil {
		t.Fatal("Pop of a corrupt entry succeeded")
	}
	if q, fl, err := f.Pending(ctx); err != nil || q != 0 || fl != 0 {
		t.Fatalf("Pending after the corrupt entry = %d, %d, %v; want 0, 0", q, fl, err)
	}
}
