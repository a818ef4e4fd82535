import { Component, inject } from '@angular/core';
import { ActivatedRoute } from '@angular/router';

@Component({ selector: 'app-search', template: '<p>Results for <span>{{ term }}</span></p>' })
export class SearchComponent {
  private readonly route = inject(ActivatedRoute);
  term = '';

  ngOnInit(): void {
    const q: string = this.route.snapshot.queryParams['q'] ?? '';
    this.term = q.trim();
  }
}
