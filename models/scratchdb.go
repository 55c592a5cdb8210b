package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
)

// CreateScratchDatabase creates an empty database, named prefix and random
// hex, on the PostgreSQL server of baseURL (whose user may create
// databases), for tests and benchmarks. It returns the new database's URL and
// a function that drops it, closing whatever is still connected.
func CreateScratchDatabase(ctx context.Context, baseURL, prefix string) (dsn string, drop func() error, err error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return "", nil, fmt.Errorf("models: scratch database: %w", err)
	}
	raw := make([]byte, 6)
	rand.Read(raw)
	name := prefix + hex.EncodeToString(raw)
	if err := onServer(ctx, baseURL, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("models: create database %s: %w", name, err)
	}
	u.Path = "/" + name
	drop = func() error {
		err := onServer(context.WithoutCancel(ctx), baseURL, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return wrap(err, "drop database %s", name)
	}
	return u.String(), drop, nil
}

// onServer runs one statement on the database of baseURL.
func onServer(ctx context.Context, baseURL, statement string) error {
	db, err := Open(ctx, baseURL, "")
	if err != nil {
		return err
	}
	defer db.Close()
	return db.WithContext(ctx).Exec(statement).Error
}
