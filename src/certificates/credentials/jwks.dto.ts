import { ApiProperty } from '@nestjs/swagger';

export class CredentialJwkDto {
  @ApiProperty({ enum: ['OKP'], example: 'OKP', description: 'Octet key pair (RFC 8037).' }) kty: 'OKP';
  @ApiProperty({ enum: ['Ed25519'], example: 'Ed25519' }) crv: 'Ed25519';
  @ApiProperty({ example: 'fNGL3Q3ZQe0AVSI6mkzNMjL0TnzYXuMjHl-lTTsGwRM', pattern: '^[A-Za-z0-9_-]{43}$', description: 'The public key (32 bytes, base64url).' })
  x: string;
  @ApiProperty({
    example: 'Tg7yD0xkTJx9KOp7Z7Z6QkJvPqY1Ln4aT8pKJ2cRmEw',
    pattern: '^[A-Za-z0-9_-]{43}$',
    description: "RFC 7638 SHA-256 thumbprint of the key: the credential header's `kid`.",
  })
  kid: string;
  @ApiProperty({ enum: ['EdDSA'], example: 'EdDSA' }) alg: 'EdDSA';
  @ApiProperty({ enum: ['sig'], example: 'sig' }) use: 'sig';
}

export class CredentialJwksDto {
  @ApiProperty({
    type: [CredentialJwkDto],
    minItems: 1,
    description:
      'The keys that sign credentials: the production key, then the test-mode key (its own `kid`; it signs only credentials of `TST-` certificates, under the issuer id `{PUBLIC_BASE_URL}/issuers/test`).',
  })
  keys: CredentialJwkDto[];
}
