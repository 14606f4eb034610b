package analyzer_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// ExampleAnalyze runs the README's library example against loopback: a
// page that answers, a 404 and a port that refuses connections. Only a
// page whose content was analysed has a score; the others say why not,
// and an unreachable one says how it failed.
func ExampleAnalyze() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>Green tea from Uji, shipped fresh</title>
<meta name="description" content="Green tea grown in Uji, picked in spring and shipped within a week of the harvest."></head>
<body><h1>Green tea</h1><p>Our green tea is grown in Uji.</p></body></html>`)
	}))
	defer srv.Close()
	// A port nothing listens on: taken, then released.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	closed := "http://" + l.Addr().String() + "/"
	l.Close()

	ctx := context.Background()
	for _, u := range []string{srv.URL + "/", srv.URL + "/gone", closed} {
		rep, err := analyzer.Analyze(ctx, u, &analyzer.Options{Depth: analyzer.Basic, AllowPrivate: true})
		if err != nil { // bad URL or refused address: errors.Is(err, seo.ErrInvalidInput)
			panic(err)
		}
		switch {
		case rep.Score != nil:
			fmt.Println("status", rep.Status, "score", rep.Score.Value > 0)
		case rep.Unreachable != nil:
			fmt.Println("unreachable:", rep.Unreachable.Kind, errors.Is(rep.Unreachable.Err(), seo.ErrUnreachable))
		default:
			fmt.Println("status", rep.Status, "not scored:", rep.ScoreReason)
		}
	}
	// Output:
	// status 200 score true
	// status 404 not scored: error_status
	// unreachable: connection true
}
