package warehousetest_test

import (
	"testing"

	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// The in-memory backend, written in test code, passes the suite every
// backend passes.
func TestMemoryConformance(t *testing.T) {
	t.Parallel()
	warehousetest.RunConformance(t, warehousetest.Harness{
		Backend:      warehousetest.NewMemory(warehousetest.Fixture()),
		Table:        warehousetest.FixtureTable,
		All:          `{"from": "items", "select": ["id", "name", "price", "active"], "order": "id"}`,
		AllRewritten: `{"order":"id","from":"items","select":["id","name","price","active"]}`,
		Invalid:      `{"from": "items", "select": ["colour"]}`,
		Unsafe:       `{"delete": "items"}`,
		Reply:        `{"query": {"from": "items", "count": true}, "assumptions": [], "explanation": "Counts items."}`,
	})
}
