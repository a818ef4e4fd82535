import axios from 'axios';

const client = axios.create({
  baseURL: 'https://api.weather.example/v2',
  headers: { 'X-Api-Key': process.env.WEATHER_API_KEY ?? '' },
});

export const forecast = (city: string) => client.get('/forecast', { params: { city } });
export const CACHE_KEY_PREFIX = 'weather:forecast:v2:city';
export const ICON_SHA256 = 'sha256-4fXb8pQz0mV3rT6yW9kL2nJ5hG8dS1aE7cR0uI4oP3k';
