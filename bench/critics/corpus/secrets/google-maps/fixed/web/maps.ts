export const MAPS_URL = `https://maps.googleapis.com/maps/api/js?key=${import.meta.env.VITE_MAPS_KEY}`;
