import { EC2Client, DescribeRegionsCommand } from '@aws-sdk/client-ec2';
