package dashboard

import (
	"context"
	"net/http"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// schedulesView is the schedules section of a project page.
type schedulesView struct{}

// alertsView is the alert rules section of a project page.
type alertsView struct{}

func (d *Dashboard) schedulesView(r *http.Request, a *store.Account, p *project) *schedulesView {
	return nil
}

func (d *Dashboard) alertsView(r *http.Request, a *store.Account, p *project) *alertsView {
	return nil
}

// nextRuns returns the next run of each of the account's projects that
// has an active schedule.
func (d *Dashboard) nextRuns(ctx context.Context, accountID string) map[string]time.Time {
	return nil
}
