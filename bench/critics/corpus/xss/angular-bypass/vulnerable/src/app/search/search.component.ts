import { Component, inject } from '@angular/core';
import { ActivatedRoute } from '@angular/router';
import { DomSanitizer, type SafeHtml } from '@angular/platform-browser';

@Component({ selector: 'app-search', template: '<p>Results for <span [innerHTML]="term"></span></p>' })
export class SearchComponent {
  private readonly route = inject(ActivatedRoute);
  private readonly sanitizer = inject(DomSanitizer);
  term: SafeHtml = '';

  ngOnInit(): void {
    const q: string = this.route.snapshot.queryParams['q'] ?? '';
    this.term = this.sanitizer.bypassSecurityTrustHtml(q.trim()); // VULN: xss
  }
}
