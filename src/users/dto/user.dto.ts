import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsInt, IsNotEmpty, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { PageQuery, PageMetaDto } from '../../common/pagination';
import { trimString } from '../../common/text';
import { MAX_INT_ID } from '../../common/params';

export class CreateUserDto {
  @ApiProperty({ example: 'acme-user-1001', minLength: 1, maxLength: 128, description: 'Your own reference for the learner; unique per partner and mode.' })
  @IsString()
  @Length(1, 128)
  @IsNotEmpty()
  external_user_id: string;

  @ApiProperty({ example: 'Ada Lovelace', minLength: 1, maxLength: 200 })
  @Transform(trimString)
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ example: 'ada@example.com' })
  @Transform(trimString)
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @Length(3, 320)
  email: string;
}

/** PUT /users/external/{external_user_id}: the learner's details; the id is in the path. */
export class UpsertUserDto extends PickType(CreateUserDto, ['name', 'email'] as const) {}

export class ListUsersQuery extends PageQuery {
  @ApiPropertyOptional({ example: 'acme-user-1001', description: 'Find the user with this external_user_id.' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  // eslint-disable-next-line no-control-regex -- NUL is the character refused here: PostgreSQL text cannot store it
  @Matches(/^[^\u0000]*$/, { message: 'external_user_id must not contain NUL characters' })
  external_user_id?: string;
}

/** Identifies a learner by platform id or by the partner's own reference (enrolment, webinars). */
export class UserRefDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_INT_ID,
    example: 501,
    description: 'Platform user id; give this or external_user_id (or both, naming the same user).',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_INT_ID)
  user_id?: number;

  @ApiPropertyOptional({ example: 'acme-user-1001', minLength: 1, maxLength: 128 })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  external_user_id?: string;
}

export class UserDto {
  @ApiProperty({ example: 501 }) id: number;
  @ApiProperty({ example: 'acme-user-1001' }) external_user_id: string;
  @ApiProperty({ example: 'Ada Lovelace' }) name: string;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) created_at: string;
}

export class UserListDto extends PageMetaDto {
  @ApiProperty({ type: [UserDto] }) users: UserDto[];
}
