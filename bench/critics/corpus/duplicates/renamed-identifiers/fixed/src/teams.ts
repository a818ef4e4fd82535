import { loadPage, type Api } from './paging';

export const fetchTeams = (client: Api, pageNumber: number) => loadPage(client, 'teams', pageNumber);
