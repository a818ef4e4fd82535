import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('next model', [
  {
    name: 'nextUrl.searchParams into redirect() and NextResponse.redirect',
    vulnerable: {
      'app/login/route.ts': `import { redirect } from 'next/navigation';
import { NextResponse, type NextRequest } from 'next/server';
export async function GET(request: NextRequest) {
  const next = request.nextUrl.searchParams.get('next') ?? '/';
  if (request.nextUrl.searchParams.has('now')) redirect(next); // SINK redirect
  return NextResponse.redirect(new URL(next, request.url)); // SINK redirect
}
`,
    },
    safe: {
      'app/login/route.ts': `import { redirect } from 'next/navigation';
import type { NextRequest } from 'next/server';
export async function GET(request: NextRequest) {
  const next = request.nextUrl.searchParams.get('next') ?? '/';
  redirect(next.startsWith('/') && !next.startsWith('//') ? next : '/');
}
`,
    },
  },
]);
