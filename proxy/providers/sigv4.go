package providers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"gateway/models"
)

// bedrockService is the signing name of Bedrock Runtime.
const bedrockService = "bedrock"

// sigV4Auth signs each call with AWS Signature Version 4, by AWS's own
// signer, with the provider's static credentials (a session token too when
// they are temporary).
type sigV4Auth struct {
	signer *v4.Signer
	creds  aws.Credentials
	region string
	now    func() time.Time
}

func newSigV4Auth(p *models.Provider, s models.ProviderSecrets, _ *http.Transport) (Authorizer, error) {
	return &sigV4Auth{signer: v4.NewSigner(), region: p.Region, now: time.Now, creds: aws.Credentials{
		AccessKeyID: p.AWSAccessKeyID, SecretAccessKey: s.AWSSecretAccessKey, SessionToken: s.AWSSessionToken,
		Source: "gateway provider"}}, nil
}

// Authorize signs req, with the hash of its body. The signer reads the
// path as the request will send it (URL.EscapedPath), so a model id
// escaped into one segment is signed as sent.
func (a *sigV4Auth) Authorize(req *http.Request, body []byte) error {
	sum := sha256.Sum256(body)
	if err := a.signer.SignHTTP(req.Context(), a.creds, req, hex.EncodeToString(sum[:]), bedrockService, a.region, a.now()); err != nil {
		return fmt.Errorf("providers: sign the request: %w", err)
	}
	return nil
}
