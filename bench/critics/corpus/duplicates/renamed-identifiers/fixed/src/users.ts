import { loadPage, type Api } from './paging';

export const loadUsers = (api: Api, page: number) => loadPage(api, 'users', page);
