package emulator

import (
	"container/list"
	"fmt"
	"sync"
)

// cacheKey identifies a filtered, sorted result of one data version.
type cacheKey struct {
	resource string
	version  uint64
	sortCol  int
	desc     bool
	filter   string
}

// resultCache is a small LRU of filtered and sorted results.
type resultCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cacheEntry, most recent first
	items map[cacheKey]*list.Element
}

type cacheEntry struct {
	key  cacheKey
	rows []int32
}

func newResultCache(size int) *resultCache {
	return &resultCache{max: size, order: list.New(), items: make(map[cacheKey]*list.Element)}
}

// entryOf is the cache entry of a list element; the cache stores nothing else.
func entryOf(e *list.Element) *cacheEntry {
	ce, ok := e.Value.(*cacheEntry)
	if !ok {
		panic(fmt.Sprintf("emulator: result cache holds a %T", e.Value))
	}
	return ce
}

func (c *resultCache) get(k cacheKey) ([]int32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return entryOf(e).rows, true
	}
	return nil, false
}

func (c *resultCache) put(k cacheKey, rows []int32) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		entryOf(e).rows = rows
		c.order.MoveToFront(e)
		return
	}
	c.items[k] = c.order.PushFront(&cacheEntry{key: k, rows: rows})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, entryOf(last).key)
	}
}
