package redistest_test

import (
	"net"
	"testing"

	"github.com/seokit/seokit/internal/redistest"
)

func TestStartStopRestart(t *testing.T) {
	s := redistest.Start(t)
	dial := func() error {
		c, err := net.Dial("tcp", s.Addr())
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := dial(); err != nil {
		t.Fatalf("server not reachable: %v", err)
	}
	s.Stop()
	if dial() == nil {
		t.Fatal("server still reachable after Stop")
	}
	if err := s.Restart(); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if err := dial(); err != nil {
		t.Fatalf("server not reachable after Restart: %v", err)
	}
}
