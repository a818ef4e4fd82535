import type { FrameworkModel } from './types.js';

/** Next.js, Remix and React Router: request objects, `nextUrl.searchParams`, `redirect()` helpers. */
export const nextModel: FrameworkModel = {
  id: 'next',
  description:
    'NextRequest/NextApiRequest parameters, request.nextUrl.searchParams, redirect/permanentRedirect from next/navigation, Remix and React Router.',
  requests: [{ flavor: 'http', origin: 'http', fields: ['searchParams'], nestedFields: ['nextUrl'] }],
  parameters: { types: [{ name: /^(NextRequest|NextApiRequest)$/, flavor: 'http' }] },
  sinks: [
    {
      kind: 'redirect',
      call: {
        module: [
          'next/navigation',
          'next/dist/client/components/navigation',
          '@remix-run/node',
          '@remix-run/server-runtime',
          'react-router',
        ],
        member: /redirect/i,
      },
      args: [0],
    },
    // Without an import in view (a re-export, a global in tests), the names still mean a redirect.
    { kind: 'redirect', call: { global: ['redirect', 'permanentRedirect'] }, args: [0] },
  ],
};
