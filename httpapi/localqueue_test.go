package httpapi_test

import (
	"testing"

	"github.com/seokit/seokit/httpapi"
	"github.com/seokit/seokit/httpapi/queuetest"
)

// The in-process queue passes the Queue conformance suite.
func TestLocalQueue(t *testing.T) {
	queuetest.Run(t, func(*testing.T) func(*testing.T) httpapi.Queue {
		return func(*testing.T) httpapi.Queue { return httpapi.NewLocalQueue(4) }
	}, nil)
}
