package models

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Cipher encrypts provider secrets at rest with AES-256-GCM.
type Cipher struct {
	aead cipher.AEAD
}

// NewCipher derives a 256-bit key from secret (SHA-256, so any passphrase works).
func NewCipher(secret string) (*Cipher, error) {
	if secret == "" {
		return nil, errors.New("models: empty secret")
	}
	key := sha256.Sum256([]byte(secret))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, fmt.Errorf("models: cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("models: cipher: %w", err)
	}
	return &Cipher{aead: aead}, nil
}

// LoadOrCreateSecret returns secret when set; otherwise it reads the key file
// in dataDir, creating it once with 32 random bytes and mode 0600.
func LoadOrCreateSecret(secret, dataDir string) (string, error) {
	if secret != "" {
		return secret, nil
	}
	path := filepath.Join(dataDir, "secret.key")
	b, err := os.ReadFile(path)
	if err == nil {
		s := strings.TrimSpace(string(b))
		if s == "" {
			return "", fmt.Errorf("models: %s is empty", path)
		}
		return s, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("models: read secret: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", fmt.Errorf("models: create data dir: %w", err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("models: generate secret: %w", err)
	}
	s := hex.EncodeToString(raw)
	// O_EXCL: two processes starting at once must not each write their own key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return LoadOrCreateSecret("", dataDir)
		}
		return "", fmt.Errorf("models: create secret: %w", err)
	}
	// Synced before use: a crash must not leave an empty key file behind
	// while provider keys sealed with the secret are already stored.
	_, err = f.WriteString(s + "\n")
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		return "", fmt.Errorf("models: write secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("models: write secret: %w", err)
	}
	return s, nil
}

// Encrypt seals plaintext with a random nonce prefixed to the result.
func (c *Cipher) Encrypt(plaintext string) ([]byte, error) {
	nonce := make([]byte, c.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("models: nonce: %w", err)
	}
	return c.aead.Seal(nonce, nonce, []byte(plaintext), nil), nil
}

// Decrypt opens what Encrypt sealed.
func (c *Cipher) Decrypt(sealed []byte) (string, error) {
	n := c.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("models: decrypt: ciphertext too short")
	}
	plain, err := c.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return "", fmt.Errorf("models: decrypt provider secret (is GATEWAY_SECRET the one it was saved with?): %w", err)
	}
	return string(plain), nil
}
