import { NextRequest, NextResponse } from 'next/server';

export function middleware(request: NextRequest) {
  const callback = request.nextUrl.searchParams.get('callbackUrl') ?? '/';
  const target = new URL(callback, request.url);
  if (target.origin !== request.nextUrl.origin) {
    return NextResponse.redirect(new URL('/', request.url));
  }
  return NextResponse.redirect(target);
}
