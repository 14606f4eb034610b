package hostile_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/seokit/seokit/internal/hostile"
)

// A page of 100,000 links, served on loopback: about 2.4 MB, streamed.
func ExampleManyLinks() {
	srv := httptest.NewServer(hostile.ManyLinks(100_000))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	fmt.Println(n > 2_400_000)
	// Output: true
}
