package browser_test

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }
