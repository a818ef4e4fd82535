import { NextRequest, NextResponse } from 'next/server';
import { prisma } from '@/lib/prisma';

export async function GET(request: NextRequest) {
  const email = request.nextUrl.searchParams.get('email') ?? '';
  const users = await prisma.$queryRaw`SELECT * FROM "User" WHERE email = ${email}`;
  return NextResponse.json(users);
}
