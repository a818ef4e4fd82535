export function normaliseAddress(input: { street: string; city: string; zip: string; country?: string }) {
  const street = input.street.trim().replace(/\s+/g, ' ');
  const city = input.city.trim().toUpperCase();
  const zip = input.zip.replace(/[^0-9A-Z]/gi, '').toUpperCase();
  if (zip.length < 4 || zip.length > 10) {
    throw new RangeError(`invalid postal code: ${input.zip}`);
  }
  const country = (input.country ?? 'DE').trim().toUpperCase();
  return { street, city, zip, country, label: `${street}, ${zip} ${city}, ${country}` };
}
