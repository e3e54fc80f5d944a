// Package predictions is the predictions seed's service (proto/predictions.proto):
// GetPredictions(id_client) reads the Redis hash predictions:{id_client}
// (class_name -> score, stored as a decimal string) and answers its entries
// sorted by class_name. The gRPC and the REST server both read through Store.
package predictions

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// pingTimeout bounds the check, at startup, that the Redis answers.
const pingTimeout = 5 * time.Second

// Store reads the seed's hashes with a real Redis client (go-redis, pooled).
type Store struct{ redis *redis.Client }

// Open connects to the Redis at url and checks that it answers. Without a URL
// there is no store (nil, nil): servers then leave the service out.
func Open(url string) (*Store, error) {
	if url == "" {
		return nil, nil
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("--redis %q: %v (expected redis://HOST:PORT/DB)", url, err)
	}
	client := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("Redis at %s does not answer (%v): start it or fix --redis", url, err)
	}
	return &Store{redis: client}, nil
}

// Key is the Redis key of one client's hash.
func Key(idClient string) string { return "predictions:" + idClient }

// Scores reads one client's hash with HGETALL; an unknown client has none.
func (s *Store) Scores(ctx context.Context, idClient string) (map[string]float32, error) {
	fields, err := s.redis.HGetAll(ctx, Key(idClient)).Result()
	if err != nil {
		return nil, err
	}
	scores := make(map[string]float32, len(fields))
	for name, text := range fields {
		value, err := strconv.ParseFloat(text, 32)
		if err != nil {
			return nil, fmt.Errorf("%s %s: score %q is not a number", Key(idClient), name, text)
		}
		scores[name] = float32(value)
	}
	return scores, nil
}

// Close releases the connection pool; a nil store has nothing to release.
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	return s.redis.Close()
}
