import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EnrollmentModule } from '../enrollment/enrollment.module';
import { UsersModule } from '../users/users.module';
import { AdminCertificatesController } from './admin-certificates.controller';
import { Certificate } from './certificate.entity';
import { CertificateIssuer } from './certificate-issuer';
import { CertificatesController } from './certificates.controller';
import { CertificatesService } from './certificates.service';

@Module({
  imports: [TypeOrmModule.forFeature([Certificate]), UsersModule, EnrollmentModule],
  controllers: [CertificatesController, AdminCertificatesController],
  providers: [CertificateIssuer, CertificatesService],
})
export class CertificatesModule {}
