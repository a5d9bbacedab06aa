package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
)

// sizeFlag is a size in bytes, written as 100MB, 512KB, 1GB or a number of
// bytes (units are powers of 1024).
type sizeFlag int64

func (s *sizeFlag) String() string { return browser.FormatBytes(int64(*s)) }

func (s *sizeFlag) Set(v string) error {
	t := strings.ToUpper(strings.TrimSpace(v))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return fmt.Errorf("%q: want a positive size such as 100MB, 512KB or 1048576", v)
	}
	*s = sizeFlag(n * mult)
	return nil
}

// countFlag is a positive count, such as --max-downloads.
type countFlag int

func (c *countFlag) String() string { return strconv.Itoa(int(*c)) }

func (c *countFlag) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return fmt.Errorf("%q: want a positive whole number", v)
	}
	*c = countFlag(n)
	return nil
}
