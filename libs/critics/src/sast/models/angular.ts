import type { FrameworkModel } from './types.js';

/**
 * Angular: the router's ActivatedRoute (injected into a component) carries the URL's parameters;
 * DomSanitizer's bypassSecurityTrust* switches Angular's own escaping off for a value.
 */
export const angularModel: FrameworkModel = {
  id: 'angular',
  description:
    'ActivatedRoute (a constructor parameter or inject(ActivatedRoute)): snapshot/queryParams/params/paramMap/queryParamMap/fragment (the page URL); DomSanitizer.bypassSecurityTrustHtml/Script/Style/Url/ResourceUrl.',
  entryHint: /ActivatedRoute/,
  requests: [
    {
      flavor: 'angular-route',
      origin: 'dom',
      fields: ['queryParams', 'params', 'queryParamMap', 'paramMap', 'fragment', 'url'],
      scalarFields: ['queryParams', 'params', 'queryParamMap', 'paramMap', 'fragment', 'url'],
      nestedFields: ['snapshot'],
    },
  ],
  parameters: { types: [{ name: /^ActivatedRoute(Snapshot)?$/, flavor: 'angular-route' }] },
  injectors: [{ module: '@angular/core', member: 'inject' }],
  sinks: [
    {
      kind: 'xss',
      call: {
        method: [
          'bypassSecurityTrustHtml',
          'bypassSecurityTrustScript',
          'bypassSecurityTrustStyle',
          'bypassSecurityTrustUrl',
          'bypassSecurityTrustResourceUrl',
        ],
      },
      args: [0],
    },
  ],
};
