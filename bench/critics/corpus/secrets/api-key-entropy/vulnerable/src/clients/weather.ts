import axios from 'axios';

const client = axios.create({
  baseURL: 'https://api.weather.example/v2',
  headers: { 'X-Api-Key': 'lJf0Dju5aSqdWssjo12ftQyz0HLEvN7TbK47gQcp' }, // VULN: secret
});

export const forecast = (city: string) => client.get('/forecast', { params: { city } });
