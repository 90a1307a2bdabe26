import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CoursesModule } from '../courses/courses.module';
import { EnrollmentModule } from '../enrollment/enrollment.module';
import { UsersModule } from '../users/users.module';
import { AdminCertificatesController } from './admin-certificates.controller';
import { Certificate } from './certificate.entity';
import { CertificateIssuer } from './certificate-issuer';
import { CertificatesController } from './certificates.controller';
import { CertificatesRepository } from './certificates.repository';
import { CertificatesService } from './certificates.service';
import { CredentialSigner } from './credentials/credential-signer';
import { JwksController } from './credentials/jwks.controller';
import { SigningKeyStore } from './credentials/signing-key.store';
import { PublicRateLimit } from './public-rate-limit';
import { VerifyPageController } from './verify-page.controller';

@Module({
  imports: [TypeOrmModule.forFeature([Certificate]), UsersModule, CoursesModule, EnrollmentModule],
  controllers: [CertificatesController, AdminCertificatesController, VerifyPageController, JwksController],
  providers: [CertificateIssuer, CertificatesService, CertificatesRepository, PublicRateLimit, SigningKeyStore, CredentialSigner],
})
export class CertificatesModule {}
