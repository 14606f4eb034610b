package hostile_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/seokit/seokit/internal/hostile"
)

// A page of a million links, served on loopback: about 25 MB, streamed.
func ExampleManyLinks() {
	srv := httptest.NewServer(hostile.ManyLinks(1_000_000))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	fmt.Println(n > 25_000_000)
	// Output: true
}
