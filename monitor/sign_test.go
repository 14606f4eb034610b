package monitor_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seokit/seokit/monitor"
)

func TestVerify(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"job_1"}`)
	now := time.Now()
	good := monitor.Sign("whsec_x", now, body)
	tests := []struct {
		name, secret, header string
		body                 []byte
		ok                   bool
	}{
		{"valid", "whsec_x", good, body, true},
		{"rotated", "whsec_x", good + ",v1=00", body, true},
		{"tampered body", "whsec_x", good, []byte(`{"id":"job_2"}`), false},
		{"wrong secret", "whsec_y", good, body, false},
		{"stale", "whsec_x", monitor.Sign("whsec_x", now.Add(-time.Hour), body), body, false},
		{"future", "whsec_x", monitor.Sign("whsec_x", now.Add(time.Hour), body), body, false},
		{"missing v1", "whsec_x", "t=" + fmt.Sprint(now.Unix()), body, false},
		{"garbage", "whsec_x", "nonsense", body, false},
		{"empty", "whsec_x", "", body, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := monitor.Verify(tc.secret, tc.header, tc.body, now, 5*time.Minute)
			if (err == nil) != tc.ok || err != nil && !errors.Is(err, monitor.ErrBadSignature) {
				t.Errorf("err %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
