package sqlstore_test

import "time"

func seoDay() time.Time { return time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC) }
