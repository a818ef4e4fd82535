import { NextRequest, NextResponse } from 'next/server';

export function middleware(request: NextRequest) {
  const callback = request.nextUrl.searchParams.get('callbackUrl') ?? '/';
  return NextResponse.redirect(new URL(callback, request.url)); // VULN: open-redirect
}
