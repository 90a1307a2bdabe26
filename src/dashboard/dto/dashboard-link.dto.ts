import { ApiProperty } from '@nestjs/swagger';

export class DashboardLinkDto {
  @ApiProperty({
    format: 'uri',
    example: 'https://api.example.com/dashboard/sign-in?token=Jx2bq0m8kYH3wX9TzQe1LmN8pR2sV6xY0aB4cD5eF6g',
    description: "Open it in a browser: it signs in to the dashboard of this key's partner and mode. Single use.",
  })
  url: string;

  @ApiProperty({ format: 'date-time', example: '2025-11-22T10:10:00.000Z', description: 'The link stops working at this time (10 minutes after it was made).' })
  expires_at: string;
}
