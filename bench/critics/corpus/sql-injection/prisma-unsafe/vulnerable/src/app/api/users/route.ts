import { NextRequest, NextResponse } from 'next/server';
import { prisma } from '@/lib/prisma';

export async function GET(request: NextRequest) {
  const email = request.nextUrl.searchParams.get('email') ?? '';
  const users = await prisma.$queryRawUnsafe(`SELECT * FROM "User" WHERE email = '${email}'`); // VULN: sql-injection
  return NextResponse.json(users);
}
