import { describeModelCases } from '../../__fixtures__/taint.js';

const SAFE_COMPONENT = `import { Component } from '@angular/core';
import { ActivatedRoute } from '@angular/router';
@Component({ selector: 'app-search', template: '<span>{{ term }}</span>' })
export class SearchComponent {
  term = '';
  constructor(private readonly route: ActivatedRoute) {}
  ngOnInit() {
    this.term = String(this.route.snapshot.queryParams.q).trim();
  }
}
`;

describeModelCases('angular model', [
  {
    name: 'a query parameter of the route trusted as HTML by DomSanitizer',
    vulnerable: {
      'src/app/search.component.ts': `import { Component } from '@angular/core';
import { ActivatedRoute } from '@angular/router';
import { DomSanitizer, type SafeHtml } from '@angular/platform-browser';
@Component({ selector: 'app-search', template: '<span [innerHTML]="term"></span>' })
export class SearchComponent {
  term: SafeHtml = '';
  constructor(private readonly route: ActivatedRoute, private readonly sanitizer: DomSanitizer) {}
  ngOnInit() {
    let query: string = this.route.snapshot.queryParams.q;
    query = query.trim();
    this.term = this.sanitizer.bypassSecurityTrustHtml(query); // SINK xss
    this.route.paramMap.subscribe((params) => {
      this.term = this.sanitizer.bypassSecurityTrustHtml(params.get('id') ?? ''); // SINK xss
    });
  }
}
`,
    },
    safe: { 'src/app/search.component.ts': SAFE_COMPONENT },
  },
  {
    name: 'the route taken with inject() and trusted as HTML',
    vulnerable: {
      'src/app/result.component.ts': `import { Component, inject } from '@angular/core';
import { ActivatedRoute } from '@angular/router';
import { DomSanitizer } from '@angular/platform-browser';
@Component({ selector: 'app-result', template: '' })
export class ResultComponent {
  private readonly route = inject(ActivatedRoute);
  private readonly sanitizer = inject(DomSanitizer);
  html = this.sanitizer.bypassSecurityTrustHtml('');
  filter() {
    this.html = this.sanitizer.bypassSecurityTrustHtml(this.route.snapshot.queryParams.q); // SINK xss
  }
}
`,
    },
    safe: {
      'src/app/result.component.ts': `import { Component, inject } from '@angular/core';
import { ActivatedRoute } from '@angular/router';
import { DomSanitizer } from '@angular/platform-browser';
@Component({ selector: 'app-result', template: '' })
export class ResultComponent {
  private readonly route = inject(ActivatedRoute);
  private readonly sanitizer = inject(DomSanitizer);
  html = this.sanitizer.bypassSecurityTrustHtml('<b>Results</b>');
  term = '';
  filter() {
    this.term = this.route.snapshot.queryParams.q;
  }
}
`,
    },
  },
]);
