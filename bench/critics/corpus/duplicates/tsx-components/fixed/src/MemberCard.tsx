import { UserCard } from './UserCard';

export function MemberCard({ member }: { member: { name: string; email: string; avatar?: string; role: string } }) {
  return <UserCard user={member} />;
}
