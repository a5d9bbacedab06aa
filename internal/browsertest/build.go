package browsertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildCommand builds the chaperone command into dir and returns the
// binary's path, for the tests and benchmarks that drive it as a user
// would. It uses the go command on PATH, as `make test` does.
func BuildCommand(dir string) (string, error) {
	bin := filepath.Join(dir, "chaperone")
	build := exec.Command("go", "build", "-o", bin, "github.com/chaperone-mcp/chaperone/cmd/chaperone")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build chaperone: %w\n%s", err, out)
	}
	return bin, nil
}
