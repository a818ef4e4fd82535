export const adminToken =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZG1pbi00MiIsInJvbGUiOiJhZG1pbiIsImlhdCI6MTcxMDAwMDAwMH0.v3N9qKfT0y8b6xQmJcR2LwS1hP7aZdU4eGiOnY5tBk0'; // VULN: secret

export const authHeader = { Authorization: `Bearer ${adminToken}` };
