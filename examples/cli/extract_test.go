package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func shopServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!DOCTYPE html><html lang="en"><head><title>Shop</title></head><body><h1>Shoes</h1>
<div class="product" data-sku="TR-100"><span class="price">€89.90</span></div>
<div class="product" data-sku="TR-200"><span class="price">€109.00</span></div>
<p>In stock</p><a href="/p">Product</a></body></html>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestAnalyzeExtractFlags(t *testing.T) {
	t.Parallel()
	srv := shopServer(t)
	args := []string{"analyze", "-allow-private", "-fail-on", "none",
		"-extract", "price=css:.price", "-extract", "sku=css:.product@data-sku",
		"-extract", "h1=xpath://h1", "-extract", `eur=regex:€([0-9.]+)`,
		"-search", "stock=text-contains:In stock", "-search", "soldout=!contains:Sold out", srv.URL + "/"}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	for _, want := range []string{"price: €89.90 | €109.00", "sku: TR-100 | TR-200", "h1: Shoes", "eur: 89.90 | 109.00",
		"stock: matched (1 occurrences)", "soldout: matched (0 occurrences)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, bad := range [][]string{
		{"-extract", "x=css:div[["}, {"-extract", "x=xpath://div[@"}, {"-extract", "x=regex:("},
		{"-extract", "novalue"}, {"-search", "x=regex:("}, {"-search", "x=has:y"},
	} {
		errOut.Reset()
		err := run(context.Background(), append(append([]string{"analyze", "-allow-private"}, bad...), srv.URL), &bytes.Buffer{}, &errOut)
		if exitCode(err) != 2 || !strings.Contains(err.Error()+errOut.String(), "invalid") {
			t.Errorf("%v: exit %d, %v", bad, exitCode(err), err)
		}
	}
}

func TestCrawlExtractCSV(t *testing.T) {
	t.Parallel()
	srv := shopServer(t)
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"crawl", "-csv", "-quiet", "-fail-on", "none", "-allow-private", "-extract", "price=css:.price",
		"-search", "stock=contains:In stock", srv.URL}, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	if !slices.Equal(head[len(head)-2:], []string{"extract:price", "search:stock"}) {
		t.Fatalf("header %q", head)
	}
	if r := rows[1]; !slices.Equal(r[len(r)-2:], []string{"€89.90 | €109.00", "true"}) {
		t.Errorf("row %q", r)
	}
}
