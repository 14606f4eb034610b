package httpapi

import (
	"context"
	"time"

	"github.com/seokit/seokit/httpapi/store"
)

// pruneHistory applies the account's plan retention when one of its site
// analyses or log parses ends: the finished analyses of the job's project
// beyond the newest plans.Limits.HistoryAnalyses or created more than
// HistoryDays days ago are deleted, and the account's finished jobs
// without a project (analyses without one, and every log parse: its
// project is in its request, not its row) created more than HistoryDays
// days ago. An account that only uploads logs is pruned too. Queued and
// running jobs are never deleted; screenshots go with their analysis; a
// diff being computed has read its reports already. A failure is logged
// and does not fail the job: the next job's pruning catches up.
func (s *Server) pruneHistory(ctx context.Context, j *store.Job) {
	if (j.Kind != "site" && j.Kind != logJobKind) || !j.Status.Done() || s.opts.DisableAuth {
		return
	}
	p, err := s.accountPlan(ctx, j.AccountID)
	if err != nil {
		s.log.Warn("retention: no plan", "account", j.AccountID, "err", err)
		return
	}
	var before time.Time
	if p.HistoryDays > 0 {
		before = s.now().Add(-time.Duration(p.HistoryDays) * 24 * time.Hour)
	}
	projects := []string{""}
	if j.ProjectID != "" {
		projects = append(projects, j.ProjectID)
	}
	for _, projectID := range projects {
		n, err := s.st.PruneJobs(ctx, j.AccountID, projectID, p.HistoryAnalyses, before)
		if err != nil {
			s.log.Warn("retention: pruning failed", "account", j.AccountID, "project", projectID, "err", err)
			continue
		}
		if n > 0 {
			s.log.Info("retention: pruned analyses", "account", j.AccountID, "project", projectID, "deleted", n)
		}
	}
}
